import type { Prisma, UnitOfWork } from "@cred/db";
import { type AuditEventContent, auditEventHash } from "./audit-chain";
import type { TenantScope } from "./principal";

export type AuditEventRow = AuditEventContent & {
  sequence: number | null;
  previousHash: string | null;
  hash: string | null;
};

const INSERT = `INSERT INTO "AuditEvent" ("id","tenantId","environment","occurredAt","actorType","actorId","actorName",
  "operation","targetType","targetId","outcome","status","requestId","clientRequestId","sourceAddress","summary")
  VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16::jsonb)`;

/**
 * Events sealed per transaction. Small enough that a batch holds the embedded database's one thread for
 * ~2 ms (500 held it ~11 ms, a stall every request behind it waited out); other statements run between
 * batches.
 */
const SEAL_BATCH = 100;

export interface AuditListFilter {
  actorId?: string;
  operation?: string;
  targetId?: string;
  outcome?: string;
  from?: Date;
  to?: Date;
}

/** The partition and the filters as a Prisma condition (the list and the export read alike). */
function filtered(scope: TenantScope, filter: AuditListFilter): Prisma.AuditEventWhereInput {
  const where: Prisma.AuditEventWhereInput = { ...scope };
  if (filter.actorId !== undefined) where.actorId = filter.actorId;
  if (filter.operation !== undefined) where.operation = filter.operation;
  if (filter.targetId !== undefined) where.targetId = filter.targetId;
  if (filter.outcome !== undefined) where.outcome = filter.outcome;
  if (filter.from !== undefined || filter.to !== undefined) {
    where.occurredAt = {
      ...(filter.from !== undefined ? { gte: filter.from } : {}),
      ...(filter.to !== undefined ? { lt: filter.to } : {}),
    };
  }
  return where;
}

export const auditRepository = {
  /** One statement, unsealed: the call's answer never waits for the chain. */
  async append(db: UnitOfWork, event: AuditEventContent): Promise<void> {
    await db.sql.query(INSERT, [
      event.id,
      event.tenantId,
      event.environment,
      event.occurredAt,
      event.actorType,
      event.actorId,
      event.actorName,
      event.operation,
      event.targetType,
      event.targetId,
      event.outcome,
      event.status,
      event.requestId,
      event.clientRequestId,
      event.sourceAddress,
      JSON.stringify(event.summary),
    ]);
  },

  /**
   * Chains the tenant's unsealed events in id order after its chain head, in one transaction under
   * the tenant's advisory lock (processes seal one at a time). Returns how many it sealed.
   */
  sealTenant(db: UnitOfWork, tenantId: string): Promise<number> {
    return db.transaction(async (tx) => {
      await tx.prisma.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`audit:${tenantId}`}))`;
      const pending = await tx.prisma.auditEvent.findMany({
        where: { tenantId, sequence: null },
        orderBy: { id: "asc" },
        take: SEAL_BATCH,
      });
      if (pending.length === 0) return 0;
      const head = await tx.prisma.auditChainHead.findUnique({ where: { tenantId } });
      let sequence = head?.sequence ?? 0;
      let previousHash = head?.hash ?? null;
      const ids: string[] = [];
      const sequences: number[] = [];
      const previous: (string | null)[] = [];
      const hashes: string[] = [];
      for (const row of pending) {
        sequence += 1;
        const hash = auditEventHash(row, sequence, previousHash);
        ids.push(row.id);
        sequences.push(sequence);
        previous.push(previousHash);
        hashes.push(hash);
        previousHash = hash;
      }
      // The whole batch in one statement: a seal costs the same few statements for 1 event or a full batch.
      await tx.prisma
        .$executeRaw`UPDATE "AuditEvent" AS e SET "sequence" = s.sequence, "previousHash" = s.previous, "hash" = s.hash
        FROM unnest(${ids}::text[], ${sequences}::int[], ${previous}::text[], ${hashes}::text[]) AS s(id, sequence, previous, hash)
        WHERE e."tenantId" = ${tenantId} AND e."sequence" IS NULL AND e."id" = s.id`;
      const last = { sequence, hash: previousHash as string };
      await tx.prisma.auditChainHead.upsert({
        where: { tenantId },
        create: { tenantId, ...last },
        update: last,
      });
      return pending.length;
    });
  },

  /**
   * Seals batch after batch until a batch is not full: every event unsealed when it began is sealed.
   * Events appended meanwhile wait for their own call's seal (it does not chase a busy tenant's tail).
   * Returns how many it sealed.
   */
  async sealAll(db: UnitOfWork, tenantId: string): Promise<number> {
    let sealed = 0;
    for (;;) {
      const n = await this.sealTenant(db, tenantId);
      sealed += n;
      if (n < SEAL_BATCH) return sealed;
    }
  },

  /** Whether the tenant has events not yet sealed. */
  async hasUnsealed(db: UnitOfWork, tenantId: string): Promise<boolean> {
    const row = await db.prisma.auditEvent.findFirst({
      where: { tenantId, sequence: null },
      select: { id: true },
    });
    return row !== null;
  },

  async tenantIds(db: UnitOfWork): Promise<string[]> {
    return (await db.prisma.tenant.findMany({ select: { id: true } })).map((t) => t.id);
  },

  /** Newest first, keyset on id, in the caller's partition. */
  list(
    db: UnitOfWork,
    scope: TenantScope,
    filter: AuditListFilter,
    page: { beforeId?: string; take: number },
  ) {
    const where = filtered(scope, filter);
    if (page.beforeId !== undefined) where.id = { lt: page.beforeId };
    return db.prisma.auditEvent.findMany({ where, orderBy: { id: "desc" }, take: page.take });
  },

  /** Oldest first, keyset on id, in the caller's partition, up to and including `upToId` (the export). */
  exportBatch(
    db: UnitOfWork,
    scope: TenantScope,
    filter: AuditListFilter,
    page: { afterId?: string; upToId: string; take: number },
  ) {
    const where = filtered(scope, filter);
    where.id = { lte: page.upToId, ...(page.afterId !== undefined ? { gt: page.afterId } : {}) };
    return db.prisma.auditEvent.findMany({ where, orderBy: { id: "asc" }, take: page.take });
  },

  /** The id of the partition's newest event, if it has any (where an export stops). */
  async newestId(db: UnitOfWork, scope: TenantScope): Promise<string | null> {
    const row = await db.prisma.auditEvent.findFirst({
      where: { ...scope },
      orderBy: { id: "desc" },
      select: { id: true },
    });
    return row?.id ?? null;
  },

  /** The events at these positions of the tenant's chain (either environment). */
  bySequence(db: UnitOfWork, tenantId: string, sequences: number[]) {
    return db.prisma.auditEvent.findMany({
      where: { tenantId, sequence: { in: sequences } },
      select: { sequence: true, hash: true },
    });
  },

  /** The oldest position still kept (older ones were purged by retention), and the chain head. */
  async chainEnds(db: UnitOfWork, tenantId: string) {
    const [oldest, head] = await Promise.all([
      db.prisma.auditEvent.aggregate({ where: { tenantId }, _min: { sequence: true } }),
      db.prisma.auditChainHead.findUnique({ where: { tenantId } }),
    ]);
    return { oldestSequence: oldest._min.sequence, head };
  },

  /** The tenant's sealed events in chain order, a batch at a time (verification). */
  chainBatch(db: UnitOfWork, tenantId: string, afterSequence: number, take: number) {
    return db.prisma.auditEvent.findMany({
      where: { tenantId, sequence: { gt: afterSequence } },
      orderBy: { sequence: "asc" },
      take,
    });
  },

  /**
   * Retention: removes the tenant's sealed events up to the newest one that occurred before `before`,
   * by position, so what remains is one unbroken stretch of the chain (events of several processes
   * may be a few milliseconds out of time order).
   */
  async purgeBefore(db: UnitOfWork, tenantId: string, before: Date): Promise<number> {
    const { rows } = await db.sql.query<{ n: number }>(
      `WITH cut AS (SELECT max("sequence") AS s FROM "AuditEvent" WHERE "tenantId" = $1 AND "occurredAt" < $2)
       DELETE FROM "AuditEvent" WHERE "tenantId" = $1 AND "sequence" <= (SELECT s FROM cut) RETURNING 1 AS n`,
      [tenantId, before],
    );
    return rows.length;
  },
};
