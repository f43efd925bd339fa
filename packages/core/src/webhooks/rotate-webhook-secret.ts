import type { TRotateWebhookSecretRequest } from "@cred/contracts/webhooks";
import type { UnitOfWork } from "@cred/db";
import { notFound } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import type { SecretBox } from "../shared/secret-box";
import { generateWebhookSecret } from "./create-webhook";
import { previousSecretsAfterRotation } from "./previous-secrets";
import { toWebhookDto } from "./webhook-dto";
import { webhookRepository } from "./webhook-repository";

/**
 * Replaces the signing secret and returns the new one (once). For `overlapSeconds` the worker signs
 * every delivery with the replaced secret too (one more `v1,` signature), so receivers switch without
 * losing events; secrets of earlier rotations keep their own overlaps (0 ends them all).
 */
export async function rotateWebhookSecret(
  db: UnitOfWork,
  scope: TenantScope,
  deps: { secretBox: SecretBox },
  input: TRotateWebhookSecretRequest,
) {
  return db.transaction(async (tx) => {
    // Read under the row lock: a concurrent rotation must find this one's secret, or one returned secret
    // would never sign anything.
    await webhookRepository.lockForUpdate(tx, input.subscriptionId);
    const row = await webhookRepository.findById(tx, scope, input.subscriptionId);
    if (!row) throw notFound("The webhook subscription");
    const secret = generateWebhookSecret();
    const updated = await webhookRepository.rotateSecret(tx, scope, row.id, {
      secretCipher: deps.secretBox.seal(secret, row.id),
      previousSecrets: previousSecretsAfterRotation(
        row.previousSecrets,
        row.secretCipher,
        input.overlapSeconds,
        new Date(),
      ),
    });
    return { ...toWebhookDto(updated), secret };
  });
}
