import type { ListQuery } from "@cred/contracts/pagination";
import type { UnitOfWork } from "@cred/db";
import { decodeCursor, toPage } from "../shared/pagination";
import type { TenantScope } from "../shared/principal";
import { toWebhookDto } from "./webhook-dto";
import { webhookRepository } from "./webhook-repository";

export async function listWebhooks(db: UnitOfWork, scope: TenantScope, query: ListQuery) {
  const rows = await webhookRepository.list(db, scope, {
    afterId: decodeCursor(query.cursor),
    take: query.limit + 1,
  });
  return toPage(rows, query.limit, toWebhookDto);
}
