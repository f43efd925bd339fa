import { Prisma } from "@cred/db";
import { newId } from "./ids";
import type { TenantScope } from "./principal";

/**
 * An outbox insert as a SQL fragment, for statements that write a row and its event at once
 * (`WITH changed AS (…) INSERT INTO "OutboxEvent" … SELECT … FROM changed`): one round trip, atomic.
 */
export function outboxRowSql(scope: TenantScope, type: string, data: Record<string, unknown>) {
  return Prisma.sql`${newId("evt")}, ${scope.tenantId}, ${scope.environment}, ${type}, ${JSON.stringify(data)}::jsonb`;
}
