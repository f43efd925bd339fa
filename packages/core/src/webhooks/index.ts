export { subscribesTo, WEBHOOK_EVENT_TYPES, type WebhookEventType } from "@cred/contracts/webhook-events";
export { livePreviousSecrets } from "./previous-secrets";
export { webhookUrlPolicy } from "./webhook-url-policy";
