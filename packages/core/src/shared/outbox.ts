import type { UnitOfWork } from "@cred/db";
import { newId } from "./ids";
import { OUTBOX_COLUMNS, outboxSelect, SqlParams } from "./outbox-sql";
import type { TenantScope } from "./principal";

/**
 * Records an event in the outbox. Call it with the transaction that makes the state change, so
 * the event exists exactly when the change does (delivery is the webhook worker's job). The row is the
 * one `outboxSelect` describes, as written by the single-statement paths.
 */
export async function emitEvent(
  db: UnitOfWork,
  scope: TenantScope,
  type: string,
  data: Record<string, unknown>,
): Promise<string> {
  const id = newId("evt");
  const p = new SqlParams();
  await db.prisma.$executeRawUnsafe(
    `INSERT INTO "OutboxEvent" (${OUTBOX_COLUMNS}) SELECT ${outboxSelect(p, scope, type, data, id)}`,
    ...p.values,
  );
  return id;
}
