import { type Database, inTransaction } from "@cred/db";
import { newId } from "../shared/ids";
import { scopeOfRow } from "../shared/scope-of";
import { subscribesTo } from "../webhooks/webhook-events";
import { isCatalogued } from "./catalogue";
import { eventsRepository } from "./events-repository";

/**
 * Fans undispatched outbox events out to deliveries: one per active subscription of the event's
 * tenant and environment that subscribes to its type and existed when it occurred. The event is
 * marked dispatched in the same transaction; the unique (subscription, event) pair makes a repeated
 * fan-out harmless. Events outside the catalogue stay internal (no delivery). Returns the number of
 * events handled; call again while it equals `batchSize`.
 */
export async function dispatchOutboxEvents(
  deps: { database: Database },
  options: { batchSize?: number; now?: Date } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 100;
  return inTransaction(deps.database.prisma, async (tx) => {
    const events = await eventsRepository.lockUndispatched(tx, batchSize);
    if (events.length === 0) return 0;
    const now = options.now ?? new Date();
    const subscriptionsByScope = new Map<
      string,
      Awaited<ReturnType<typeof eventsRepository.liveSubscriptions>>
    >();
    const deliveries = [];
    for (const event of events) {
      if (!isCatalogued(event.type)) continue;
      const key = `${event.tenantId}\u0000${event.environment}`;
      let subscriptions = subscriptionsByScope.get(key);
      if (!subscriptions) {
        subscriptions = await eventsRepository.liveSubscriptions(tx, scopeOfRow(event));
        subscriptionsByScope.set(key, subscriptions);
      }
      for (const subscription of subscriptions) {
        if (subscription.createdAt > event.occurredAt || !subscribesTo(subscription.events, event.type))
          continue;
        deliveries.push({
          id: newId("whd"),
          tenantId: event.tenantId,
          environment: event.environment,
          subscriptionId: subscription.id,
          eventId: event.id,
          eventType: event.type,
          status: "pending",
          nextAttemptAt: now,
        });
      }
    }
    await eventsRepository.createDeliveries(tx, deliveries);
    await eventsRepository.markDispatched(
      tx,
      events.map((e) => e.id),
      now,
    );
    return events.length;
  });
}
