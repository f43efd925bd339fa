// @cred/sdk: a typed client of the Credential Platform REST API, generated from openapi.json, with the
// conventions of docs/api/conventions.md handled once (README.md).
export {
  type CallExtras,
  type CredClient,
  type CredClientOptions,
  createCredClient,
  type ListItem,
  type ListPath,
  type SuccessBody,
} from "./client.js";
export { CredApiError, type CredErrorDetail } from "./errors.js";
export {
  API_VERSION,
  type components,
  type operations,
  type paths,
  type webhooks,
} from "./generated/openapi.js";
export { idempotencyHeader, newIdempotencyKey } from "./idempotency.js";
export { type Page, paginate } from "./paging.js";
export { type RetryOptions, retryAfterMs, retryingFetch } from "./retry.js";
export {
  verifyWebhook,
  type WebhookEvent,
  type WebhookEvents,
  WebhookVerificationError,
} from "./webhooks.js";

/** A schema of openapi.json by name, e.g. `Schema<"IssuanceTransaction">`. */
export type Schema<Name extends keyof import("./generated/openapi.js").components["schemas"]> =
  import("./generated/openapi.js").components["schemas"][Name];
