import {
  type TUpdateWebhookRequest,
  type TWebhookSubscription,
  WEBHOOK_READ_ONLY_FIELDS,
} from "@cred/contracts/webhooks";
import type { UnitOfWork } from "@cred/db";
import type { CoreConfig } from "../shared/context";
import { DomainError, notFound } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import { toWebhookDto } from "./webhook-dto";
import { webhookRepository } from "./webhook-repository";
import { assertWebhookUrlAllowed } from "./webhook-url-policy";

/** What a subscription disabled through Webhooks_Update shows as its `disabledReason`. */
export const DISABLED_BY_UPDATE = "Disabled through Webhooks_Update.";

/**
 * Refuses a patch that names a read-only member (400 ReadOnlyField); `secret` points at
 * Webhooks_RotateSecret. Runs on the raw body, before the strict schema would call it merely unknown.
 */
export function assertNoReadOnlyWebhookFields(raw: unknown): void {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return;
  const named = WEBHOOK_READ_ONLY_FIELDS.filter((field) => Object.hasOwn(raw, field));
  if (named.length === 0) return;
  throw new DomainError(
    "ReadOnlyField",
    `${named.map((f) => `'${f}'`).join(", ")} ${named.length === 1 ? "is" : "are"} read-only and cannot be changed${named.includes("secret") ? "; rotate the secret with Webhooks_RotateSecret" : ""}.`,
    named.map((field) => ({
      code: "ReadOnlyField",
      target: field,
      message:
        field === "secret" ? "Use Webhooks_RotateSecret to replace the secret." : `'${field}' is read-only.`,
    })),
  );
}

/**
 * JSON merge patch (RFC 7396) of a subscription: an absent member is unchanged, `description: null`
 * clears it, `events` is replaced as a whole. A new URL goes through the same policy as on create
 * (400 WebhookUrlNotAllowed). The signing secret is never changed here.
 */
export async function updateWebhook(
  db: UnitOfWork,
  scope: TenantScope,
  deps: { config: Pick<CoreConfig, "developmentMode" | "webhookAllowedHosts"> },
  input: TUpdateWebhookRequest,
): Promise<TWebhookSubscription> {
  const changes: Parameters<typeof webhookRepository.update>[3] = {};
  if (input.url !== undefined) changes.url = await assertWebhookUrlAllowed(input.url, deps.config);
  if (input.events !== undefined) changes.events = input.events;
  if (input.description !== undefined) changes.description = input.description;
  if (input.status === "active") Object.assign(changes, { status: "active", disabledReason: null });
  return db.transaction(async (tx) => {
    const current = await webhookRepository.findById(tx, scope, input.subscriptionId);
    if (!current) throw notFound("The webhook subscription");
    // Disabling keeps the worker's reason when it had disabled the subscription already.
    if (input.status === "disabled" && current.status !== "disabled") {
      Object.assign(changes, { status: "disabled", disabledReason: DISABLED_BY_UPDATE });
    }
    if (Object.keys(changes).length === 0) return toWebhookDto(current);
    const row = await webhookRepository.update(tx, scope, current.id, changes);
    if (!row) throw notFound("The webhook subscription");
    return toWebhookDto(row);
  });
}
