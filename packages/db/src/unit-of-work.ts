import type { FastSql, SqlParam } from "./fast-sql";
import type { Prisma, PrismaClient } from "./generated/prisma/client";

/** Either the client or an open interactive transaction, as Prisma types them. */
export type Db = PrismaClient | Prisma.TransactionClient;

/**
 * The database as one piece of work sees it: at the root, or inside one interactive transaction.
 * Repositories take it and choose per statement between Prisma (`prisma`) and single SQL statements
 * (`sql`): at the root `sql` goes straight to the driver (docs/adr/0003-hot-path-sql.md), inside a
 * transaction it joins that transaction. Nothing compares client objects to tell the two apart.
 */
export interface UnitOfWork {
  readonly prisma: Db;
  readonly sql: FastSql;
  readonly inTransaction: boolean;
  /** Runs `fn` in one transaction; joins this one when already inside. */
  transaction<T>(fn: (tx: UnitOfWork) => Promise<T>): Promise<T>;
  /**
   * Runs `effect` once what this unit wrote is committed: at once at the root, after the commit inside
   * a transaction, never when it rolls back. Cache invalidations go here, so no reader can cache the row
   * as it was between the invalidation and the commit.
   */
  afterCommit(effect: () => void): void;
}

const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 15_000 };

/** The root unit of work of a database: each statement on its own, transactions opened on demand. */
export function rootUnitOfWork(prisma: PrismaClient, fast: FastSql): UnitOfWork {
  return {
    prisma,
    sql: fast,
    inTransaction: false,
    async transaction(fn) {
      const committed: (() => void)[] = [];
      const result = await prisma.$transaction(
        (tx) => fn(transactionUnitOfWork(tx, committed)),
        TRANSACTION_OPTIONS,
      );
      for (const effect of committed) effect();
      return result;
    },
    afterCommit: (effect) => effect(),
  };
}

function transactionUnitOfWork(tx: Prisma.TransactionClient, committed: (() => void)[]): UnitOfWork {
  const unit: UnitOfWork = {
    prisma: tx,
    // Statements report what they changed with RETURNING, so `affected` is the number of rows returned.
    sql: {
      async query<T>(text: string, params: SqlParam[] = []) {
        const rows = await tx.$queryRawUnsafe<T[]>(text, ...params);
        return { rows, affected: rows.length };
      },
    },
    inTransaction: true,
    transaction: (fn) => fn(unit),
    afterCommit: (effect) => committed.push(effect),
  };
  return unit;
}

/** True for a unique-constraint violation (Prisma P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "P2002";
}
