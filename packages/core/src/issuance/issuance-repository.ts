import { type Db, Prisma } from "@cred/db";

export interface NewIssuanceTransaction {
  id: string;
  tenantId: string;
  environment: string;
  issuerId: string;
  configurationId: string;
  configurationIdentifier: string;
  configurationVersion: number;
  status: string;
  claimsCipher: string;
  callbackReference: string | null;
  externalSubjectReference: string | null;
  offerBy: string;
  offerCipher: string;
  offerHandleHash: string;
  preAuthorizedCodeHash: string;
  txCodeHash: string | null;
  txCodeSpec: unknown;
  expiresAt: Date;
  createdAt: Date;
}

/**
 * Issuance writes on the hot path as single statements: the row and its outbox event are written by
 * one `WITH … INSERT` (atomic without an interactive transaction, one round trip instead of four).
 */
export const issuanceRepository = {
  async insertWithEvent(db: Db, row: NewIssuanceTransaction, event: Prisma.Sql) {
    const inserted = await db.$executeRaw`
      WITH created AS (
        INSERT INTO "IssuanceTransaction" (
          "id", "tenantId", "environment", "issuerId", "configurationId", "configurationIdentifier",
          "configurationVersion", "status", "claimsCipher", "callbackReference", "externalSubjectReference",
          "offerBy", "offerCipher", "offerHandleHash", "preAuthorizedCodeHash", "txCodeHash", "txCodeSpec",
          "expiresAt", "createdAt", "updatedAt")
        VALUES (
          ${row.id}, ${row.tenantId}, ${row.environment}, ${row.issuerId}, ${row.configurationId},
          ${row.configurationIdentifier}, ${row.configurationVersion}, ${row.status}, ${row.claimsCipher},
          ${row.callbackReference}, ${row.externalSubjectReference}, ${row.offerBy}, ${row.offerCipher},
          ${row.offerHandleHash}, ${row.preAuthorizedCodeHash}, ${row.txCodeHash},
          ${row.txCodeSpec === null ? null : JSON.stringify(row.txCodeSpec)}::jsonb,
          ${row.expiresAt}, ${row.createdAt}, ${row.createdAt})
        RETURNING "id")
      INSERT INTO "OutboxEvent" ("id", "tenantId", "environment", "type", "payload")
      SELECT ${event} FROM created`;
    if (inserted !== 1) throw new Error("issuance transaction insert wrote no event");
  },
};

export interface NewCredential {
  id: string;
  tenantId: string;
  environment: string;
  issuerId: string;
  configurationId: string;
  transactionId: string;
  statusListId: string | null;
  statusIndex: number | null;
  digest: string;
  holderKeyThumb: string | null;
  notificationId: string | null;
  issuedAt: Date;
  expiresAt: Date;
}

/**
 * Completes a pending transaction, records its credentials and the completion event in ONE statement:
 * nothing is written unless the transaction was still pending; a status index taken meanwhile makes the
 * whole statement fail on the unique (list, index) constraint, so the caller draws again.
 * Returns false when the transaction was no longer pending.
 */
export async function completeWithCredentials(
  db: Db,
  transactionId: string,
  now: Date,
  credentials: NewCredential[],
  event: Prisma.Sql,
): Promise<boolean> {
  const values = Prisma.join(
    credentials.map(
      (c) => Prisma.sql`(${c.id}::text, ${c.tenantId}::text, ${c.environment}::text, ${c.issuerId}::text,
        ${c.configurationId}::text, ${c.transactionId}::text, 'issued', ${c.statusListId}::text, ${c.statusIndex}::int,
        ${c.digest}::text, ${c.holderKeyThumb}::text, ${c.notificationId}::text,
        ${c.issuedAt}::timestamp(3), ${c.expiresAt}::timestamp(3))`,
    ),
  );
  const [result] = await db.$queryRaw<{ completed: number; issued: number }[]>`
    WITH done AS (
      UPDATE "IssuanceTransaction"
         SET "status" = 'completed', "completedAt" = ${now}, "credentialId" = ${credentials[0]!.id},
             "claimsCipher" = NULL, "offerCipher" = NULL, "offerHandleHash" = NULL, "updatedAt" = ${now}
       WHERE "id" = ${transactionId} AND "status" = 'pending' AND "expiresAt" > ${now}
      RETURNING "id"),
    issued AS (
      INSERT INTO "Credential" ("id", "tenantId", "environment", "issuerId", "configurationId", "transactionId",
        "status", "statusListId", "statusIndex", "digest", "holderKeyThumb", "notificationId", "issuedAt", "expiresAt")
      SELECT v.* FROM (VALUES ${values}) AS v WHERE EXISTS (SELECT 1 FROM done)
      RETURNING "id"),
    event AS (
      INSERT INTO "OutboxEvent" ("id", "tenantId", "environment", "type", "payload")
      SELECT ${event} FROM done)
    SELECT (SELECT count(*) FROM done)::int AS "completed", (SELECT count(*) FROM issued)::int AS "issued"`;
  return result?.completed === 1;
}

/** A unique-constraint violation from a raw statement (PostgreSQL 23505). */
export function isRawUniqueViolation(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /23505|duplicate key|unique constraint/i.test(message);
}
