import type { UnitOfWork } from "@cred/db";
import { notFound } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import { toWebhookDto } from "./webhook-dto";
import { webhookRepository } from "./webhook-repository";

/**
 * Soft-deletes a subscription: it stops receiving events and reads as 404 from now on, while its
 * deliveries stay listed. Returns the subscription as it was.
 */
export async function deleteWebhook(db: UnitOfWork, scope: TenantScope, id: string) {
  return db.transaction(async (tx) => {
    const row = await webhookRepository.findById(tx, scope, id);
    if (!row || !(await webhookRepository.softDelete(tx, scope, id, new Date()))) {
      throw notFound("The webhook subscription");
    }
    return toWebhookDto(row);
  });
}
