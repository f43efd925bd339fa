/** Every event a webhook subscription can receive (DESIGN §7); `*` subscribes to all of them. */
export const WEBHOOK_EVENT_TYPES = [
  "issuance.transaction.created",
  "issuance.transaction.completed",
  "issuance.transaction.reissued",
  "issuance.transaction.deferred",
  "issuance.transaction.cancelled",
  "issuance.transaction.expired",
  "credential.revoked",
  "credential.suspended",
  "credential.reinstated",
  "credential.accepted",
  "credential.failed",
  "credential.deleted",
  "verification.session.created",
  "verification.session.verified",
  "verification.session.rejected",
  "verification.session.cancelled",
  "verification.session.expired",
  "issuer.activated",
  "credential_configuration.created",
  "credential_configuration.version_activated",
  "verification_policy.suspended",
  "verification_policy.reactivated",
  "verification_policy.version_activated",
  "trust_source.refresh_failed",
  "trust_source.expired",
  "verifier_certificate.expiring",
  "registration_certificate.expiring",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const ALL_EVENTS = "*";

/** Whether a subscription's `events` list covers `type`. */
export function subscribesTo(events: readonly string[], type: string): boolean {
  return events.includes(ALL_EVENTS) || events.includes(type);
}
