import { isCatalogued } from "@cred/contracts/webhook-event-catalogue";
import type { Database } from "@cred/db";
import { newId } from "../shared/ids";
import { subscribesTo } from "../webhooks";
import { eventsRepository } from "./events-repository";

/**
 * Fans undispatched outbox events out to deliveries: one per active subscription of the event's
 * tenant and environment that subscribes to its type and existed when it occurred. Events outside the
 * catalogue stay internal (no delivery). Returns the number of events handled; call again while it
 * equals `batchSize`.
 *
 * Two statements, no interactive transaction (which on the embedded database would hold its only
 * connection): a read of the oldest undispatched events with their candidate subscriptions, then ONE
 * statement that marks those events dispatched (with how many deliveries they get, which spares the
 * sweeper from looking at events that have deliveries: purge-repository.ts) and creates the deliveries of
 * exactly the events it marked. Dispatchers running at once (several processes on PostgreSQL) may read the same events; each
 * event is marked by one of them only, and the unique (subscription, event) pair makes a repeat harmless.
 */
export async function dispatchOutboxEvents(
  deps: { database: Database },
  options: { batchSize?: number; now?: Date } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 100;
  const db = deps.database.root;
  const rows = await eventsRepository.undispatchedWithCandidates(db, batchSize);
  if (rows.length === 0) return 0;
  const now = options.now ?? new Date();
  const deliveries = rows
    .filter((r) => r.subscriptionId && isCatalogued(r.type) && subscribesTo(r.events ?? [], r.type))
    .map((r) => ({
      id: newId("whd"),
      tenantId: r.tenantId,
      environment: r.environment,
      subscriptionId: r.subscriptionId,
      eventId: r.id,
      eventType: r.type,
      at: now.toISOString(),
    }));
  const fannedOut = new Map(rows.map((r) => [r.id, 0]));
  for (const d of deliveries) fannedOut.set(d.eventId, (fannedOut.get(d.eventId) ?? 0) + 1);
  const events = [...fannedOut].map(([id, deliveries]) => ({ id, deliveries }));
  await eventsRepository.markDispatched(db, now, events, deliveries);
  return events.length;
}
