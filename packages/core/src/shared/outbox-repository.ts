import type { UnitOfWork } from "@cred/db";
import { OUTBOX_COLUMNS, outboxSelect, SqlParams } from "./outbox-sql";
import type { TenantScope } from "./principal";

/** The outbox's own statement (the single-statement paths write their events through `outboxSelect`). */
export const outboxRepository = {
  /** Inserts event `id` of the tenant and environment, in the caller's unit of work. */
  async insertEvent(
    db: UnitOfWork,
    scope: TenantScope,
    id: string,
    type: string,
    data: Record<string, unknown>,
  ): Promise<void> {
    const p = new SqlParams();
    await db.prisma.$executeRawUnsafe(
      `INSERT INTO "OutboxEvent" (${OUTBOX_COLUMNS}) SELECT ${outboxSelect(p, scope, type, data, id)}`,
      ...p.values,
    );
  },
};
