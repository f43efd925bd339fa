import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { webhooks } from "./generated/openapi.js";

type EventBody<Operation> = Operation extends { requestBody: { content: { "application/json": infer Body } } }
  ? Body
  : never;

/** The body of each webhook event type, by its name (`credential.issued`, …), from openapi.json's `webhooks`. */
export type WebhookEvents = { [Type in keyof webhooks]: EventBody<webhooks[Type]["post"]> };

/** Any webhook event body; narrow it by `type`. */
export type WebhookEvent = WebhookEvents[keyof WebhookEvents];

export { WebhookVerificationError };

/**
 * Verifies a delivery's Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature` over the raw body) with the subscription's `whsec_…` secret, through the
 * `standardwebhooks` library, and returns the parsed event. Throws `WebhookVerificationError` for a
 * missing or wrong signature or a timestamp more than five minutes off. Pass the body exactly as
 * received (the raw text, not re-serialised JSON). Deliveries come at least once: deduplicate by
 * `webhook-id`.
 */
export function verifyWebhook(
  secret: string,
  payload: string | Uint8Array,
  headers: Headers | Record<string, string | string[] | undefined>,
): WebhookEvent {
  const body = typeof payload === "string" ? payload : new TextDecoder().decode(payload);
  return new Webhook(secret).verify(body, headerRecord(headers)) as WebhookEvent;
}

/** Node's `IncomingHttpHeaders`, a Fetch `Headers` or a plain record, as the record the library reads. */
function headerRecord(
  headers: Headers | Record<string, string | string[] | undefined>,
): Record<string, string> {
  const record: Record<string, string> = {};
  if (headers instanceof Headers) {
    headers.forEach((value, name) => {
      record[name] = value;
    });
    return record;
  }
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    record[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return record;
}
