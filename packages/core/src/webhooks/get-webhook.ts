import type { UnitOfWork } from "@cred/db";
import { notFound } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import { toWebhookDto } from "./webhook-dto";
import { webhookRepository } from "./webhook-repository";

export async function getWebhook(db: UnitOfWork, scope: TenantScope, id: string) {
  const row = await webhookRepository.findById(db, scope, id);
  if (!row) throw notFound("The webhook subscription");
  return toWebhookDto(row);
}
