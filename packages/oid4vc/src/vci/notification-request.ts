import { z } from "zod";
import { notificationError } from "./errors";

/** The events a wallet notifies (OpenID4VCI §11.1). */
export const NOTIFICATION_EVENTS = [
  "credential_accepted",
  "credential_failure",
  "credential_deleted",
] as const;
export type TNotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/**
 * §11.1: `event_description` is human-readable ASCII without `"` and `\` (%x20-21 / %x23-5B / %x5D-7E),
 * the character set of RFC 6749's `error_description`.
 */
const EVENT_DESCRIPTION = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;

/** Notification Request (OpenID4VCI §11.1). Parameters it does not define are ignored. */
export const ZNotificationRequest = z.looseObject({
  notification_id: z.string(),
  event: z.enum(NOTIFICATION_EVENTS),
  event_description: z.string().regex(EVENT_DESCRIPTION).optional(),
});
export type TNotificationRequest = z.infer<typeof ZNotificationRequest>;

/**
 * A Notification Request body (JSON, already parsed), or 400 `invalid_notification_request` (§11.3)
 * naming what is wrong: not an object, no `notification_id`, an unknown `event`, or an
 * `event_description` that is not a string of §11.1's characters.
 */
export function parseNotificationRequest(body: unknown): TNotificationRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw notificationError("invalid_notification_request", "Send a JSON object.");
  const parsed = ZNotificationRequest.safeParse(body);
  if (parsed.success) return parsed.data;
  const field = parsed.error.issues[0]?.path[0];
  if (field === "event_description")
    throw notificationError(
      "invalid_notification_request",
      'event_description must be a string of printable ASCII characters other than " and \\ (OpenID4VCI §11.1).',
    );
  throw notificationError(
    "invalid_notification_request",
    `notification_id and an event (${NOTIFICATION_EVENTS.join(", ")}) are required.`,
  );
}
