export {
  EVENT_CATALOGUE,
  eventCatalogueOpenApi,
  isCatalogued,
  webhookBody,
  webhookBodySchema,
} from "@cred/contracts/webhook-event-catalogue";
export { onOutboxWrite } from "../shared/outbox-signal";
export {
  type AttemptResult,
  claimDueDeliveries,
  type DeliveryDeps,
  deliverWebhook,
} from "./deliver-webhooks";
export {
  DEFAULT_DELIVERY_OPTIONS,
  type DeliveryOptions,
  nextAttemptAt,
  retryScheduleFor,
} from "./delivery-options";
export { dispatchOutboxEvents } from "./dispatch-outbox-events";
export type { ClaimedDelivery } from "./events-repository";
export { type OperationalGauges, readOperationalGauges } from "./operational-gauges";
export { signWebhook } from "./sign-webhook";
export { type SweepReport, sweepExpired } from "./sweep-expired";
