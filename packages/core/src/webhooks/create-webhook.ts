import { randomBytes } from "node:crypto";
import type { TCreateWebhookRequest } from "@cred/contracts/webhooks";
import type { UnitOfWork } from "@cred/db";
import type { CoreConfig } from "../shared/context";
import { newId } from "../shared/ids";
import type { TenantScope } from "../shared/principal";
import type { SecretBox } from "../shared/secret-box";
import { toWebhookDto } from "./webhook-dto";
import { webhookRepository } from "./webhook-repository";
import { assertWebhookUrlAllowed } from "./webhook-url-policy";

/** A Standard Webhooks signing secret: `whsec_` + base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

/**
 * Creates a subscription after checking its URL. The secret is sealed at rest (bound to the
 * subscription id) and returned only here.
 */
export async function createWebhook(
  db: UnitOfWork,
  scope: TenantScope,
  deps: { config: Pick<CoreConfig, "developmentMode" | "webhookAllowedHosts">; secretBox: SecretBox },
  input: TCreateWebhookRequest,
) {
  const url = await assertWebhookUrlAllowed(input.url, deps.config);
  const id = newId("wh");
  const secret = generateWebhookSecret();
  const row = await webhookRepository.create(db, {
    id,
    ...scope,
    url,
    events: input.events,
    description: input.description ?? null,
    status: "active",
    secretCipher: deps.secretBox.seal(secret, id),
  });
  return { ...toWebhookDto(row), secret };
}
