import type { TListWebhookDeliveriesRequest } from "@cred/contracts/webhooks";
import type { UnitOfWork } from "@cred/db";
import { decodeCursor, toPage } from "../shared/pagination";
import type { TenantScope } from "../shared/principal";
import { toWebhookDeliveryDto } from "./webhook-dto";
import {
  type WebhookAttemptRow,
  webhookAttemptRepository,
  webhookDeliveryRepository,
} from "./webhook-repository";

/** Deliveries in creation order, deleted subscriptions' included (kept until the retention purge). */
export async function listWebhookDeliveries(
  db: UnitOfWork,
  scope: TenantScope,
  query: TListWebhookDeliveriesRequest,
) {
  const rows = await webhookDeliveryRepository.list(
    db,
    scope,
    { subscriptionId: query.subscriptionId, status: query.status, eventType: query.eventType },
    { afterId: decodeCursor(query.cursor), take: query.limit + 1 },
  );
  const attemptsOf = new Map<string, WebhookAttemptRow[]>();
  const ids = rows.slice(0, query.limit).map((row) => row.id);
  for (const attempt of await webhookAttemptRepository.forDeliveries(db, ids)) {
    const list = attemptsOf.get(attempt.deliveryId) ?? [];
    attemptsOf.set(attempt.deliveryId, list);
    list.push(attempt);
  }
  return toPage(rows, query.limit, (row) => toWebhookDeliveryDto(row, attemptsOf.get(row.id) ?? []));
}
