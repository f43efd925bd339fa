import type { TWebhookDelivery, TWebhookSubscription } from "@cred/contracts/webhooks";
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookSubscriptionRow } from "./webhook-repository";

/** The public view of a subscription: never the secret. */
export function toWebhookDto(row: WebhookSubscriptionRow): TWebhookSubscription {
  return {
    id: row.id,
    url: row.url,
    events: row.events as TWebhookSubscription["events"],
    description: row.description,
    status: row.status as TWebhookSubscription["status"],
    disabledReason: row.disabledReason,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** A delivery with its attempts (this delivery's, oldest first, as the attempt repository reads them). */
export function toWebhookDeliveryDto(
  row: WebhookDeliveryRow,
  attempts: WebhookAttemptRow[],
): TWebhookDelivery {
  return {
    id: row.id,
    subscriptionId: row.subscriptionId,
    eventId: row.eventId,
    eventType: row.eventType as TWebhookDelivery["eventType"],
    status: row.status as TWebhookDelivery["status"],
    attempts: row.attempts,
    lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    lastResponseStatus: row.lastResponseStatus,
    lastError: row.lastError,
    attemptLog: attempts.map((a) => ({
      attempt: a.attemptNumber,
      startedAt: a.startedAt.toISOString(),
      durationMs: a.durationMs,
      responseStatus: a.responseStatus,
      error: a.error,
    })),
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}
