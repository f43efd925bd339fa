import { Webhook } from "standardwebhooks";

export interface SigningSecrets {
  current: string;
  /** Secrets replaced by rotations whose overlap has not ended. */
  previous?: readonly string[];
}

/**
 * Standard Webhooks headers for one attempt: `webhook-id` is the event id (the same on every retry),
 * `webhook-timestamp` the signing time, `webhook-signature` one `v1,` signature per live secret, so
 * receivers verify with either during a rotation's overlap.
 */
export function signWebhook(
  secrets: SigningSecrets,
  eventId: string,
  body: string,
  at: Date,
): Record<"webhook-id" | "webhook-timestamp" | "webhook-signature", string> {
  const signatures = [secrets.current, ...(secrets.previous ?? [])].map((secret) =>
    new Webhook(secret).sign(eventId, at, body),
  );
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signatures.join(" "),
  };
}
