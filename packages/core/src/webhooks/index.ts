export { livePreviousSecrets } from "./previous-secrets";
export { subscribesTo, WEBHOOK_EVENT_TYPES, type WebhookEventType } from "./webhook-events";
export { webhookUrlPolicy } from "./webhook-url-policy";
