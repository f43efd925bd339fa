import type { Prisma, PrismaClient } from "./generated/prisma/client";

/** Either the client or an open interactive transaction: use-cases accept both. */
export type Db = PrismaClient | Prisma.TransactionClient;

/** Runs `fn` in a transaction, joining the caller's one when `db` is already a transaction. */
export function inTransaction<T>(db: Db, fn: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
  // Prisma 7 transaction clients also expose `$transaction` (savepoints, which the PGlite adapter lacks);
  // only the root client has `$connect`, so that is what tells the two apart.
  if ("$connect" in db) return db.$transaction(fn, { maxWait: 10_000, timeout: 15_000 });
  return fn(db);
}

/** True for a unique-constraint violation (Prisma P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "P2002";
}
