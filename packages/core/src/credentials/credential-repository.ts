import type { Db, UnitOfWork } from "@cred/db";
import { STATUS_CHUNK_BYTES, STATUS_LIST_BITS, statusEntryLocation } from "../issuers";
import { OUTBOX_COLUMNS, outboxSelect, SqlParams } from "../shared/outbox-sql";
import type { TenantScope } from "../shared/principal";
import { scopeOfRow } from "../shared/scope-of";

export type CredentialRow = NonNullable<Awaited<ReturnType<Db["credential"]["findUnique"]>>>;

/** `Credential.status` as stored: `issued` (valid, status list value 0), `suspended` (2), `revoked` (1). */
export type StoredStatus = "issued" | "suspended" | "revoked";

/** A credential as Credentials_Get/List read it: the row, its configuration identifier and version. */
export type CredentialReadRow = CredentialRow & {
  configurationIdentifier: string;
  configurationVersion: number;
};

/** Credentials_List's filters (stored values; `state` is the read model's, `expired` derived from `now`). */
export interface CredentialFilters {
  state?: "active" | "suspended" | "revoked" | "expired";
  credentialConfiguration?: string;
  issuerId?: string;
  transactionId?: string;
  externalSubjectReference?: string;
  issuedFrom?: Date;
  issuedTo?: Date;
}

/**
 * A status change other than revoking an issued credential (which keeps its measured statement,
 * `revoke`): the stored status it leaves and the one it sets, the entry's new 2-bit value, and its event.
 */
export interface StatusChange {
  from: StoredStatus;
  to: StoredStatus;
  /** IETF Token Status List value: 0 VALID, 1 INVALID, 2 SUSPENDED. */
  value: 0 | 1 | 2;
  event: "credential.suspended" | "credential.reinstated" | "credential.revoked";
  /** The `status` of the event's payload. */
  eventStatus: "suspended" | "active" | "revoked";
}

/** The read model's select: the credential, its configuration's identifier, its transaction's version. */
const READ_SELECT = `SELECT c.*, k."identifier" AS "configurationIdentifier", t."configurationVersion"
   FROM "Credential" c
   JOIN "CredentialConfiguration" k ON k."id" = c."configurationId"
   JOIN "IssuanceTransaction" t ON t."id" = c."transactionId"`;

/**
 * Issued credentials as their issuer's tenant manages them. `findVisible` reads within the caller's
 * tenant scope; the writes are keyed by a row it gave (they keep the single statements of the revocation
 * path, which is measured).
 */
export const credentialRepository = {
  /**
   * The credential, if the caller may see it (its tenant scope and, for an issuer-bound key, its issuer),
   * with the number of copies of its batch and whether its transaction can still issue more.
   */
  async findVisible(db: UnitOfWork, scope: TenantScope, issuerId: string | null, credentialId: string) {
    const { rows } = await db.sql.query<CredentialRow & { copies: number; reissuable: boolean }>(
      `SELECT c.*, (SELECT count(*)::int FROM "Credential" s WHERE s."transactionId" = c."transactionId") AS "copies",
              EXISTS (SELECT 1 FROM "IssuanceTransaction" t
                       WHERE t."id" = c."transactionId" AND t."claimsCipher" IS NOT NULL) AS "reissuable"
         FROM "Credential" c
        WHERE c."id" = $1 AND c."tenantId" = $2 AND c."environment" = $3 AND ($4::text IS NULL OR c."issuerId" = $4)`,
      [credentialId, scope.tenantId, scope.environment, issuerId],
    );
    return rows[0] ?? null;
  },

  /**
   * The copies of a batch in one of `statuses` (default: still issued), in one order (list, index), so
   * concurrent changes lock the lists alike. Keyed by the transaction of a credential `findVisible` gave.
   */
  async issuedCopies(db: UnitOfWork, transactionId: string, statuses: readonly StoredStatus[] = ["issued"]) {
    const p = new SqlParams();
    const { rows } = await db.sql.query<CredentialRow>(
      `SELECT * FROM "Credential" WHERE "transactionId" = ${p.add(transactionId)}
          AND "status" IN (${statuses.map((status) => p.add(status)).join(", ")})
        ORDER BY "statusListId", "statusIndex"`,
      p.values,
    );
    return rows;
  },

  /**
   * One statement changes the credential, bumps the list version (locking the list row first, so
   * concurrent revocations of a list queue in one order), sets the entry's status bits in its 1 KiB chunk
   * (2 bits per entry, LSB first; `set_byte` on the chunk row under its lock, so neighbours in the same
   * byte never undo each other; the chunk row is created on its first revocation) and writes the event;
   * the next status list fetch, even on another process, shows it. Nothing happens (null) if the
   * credential is no longer `issued`. Keyed by a row `findVisible` or `issuedCopies` gave.
   */
  async revoke(
    db: UnitOfWork,
    row: CredentialRow,
    configurationIdentifier: string,
  ): Promise<CredentialRow | null> {
    if (row.statusListId === null || row.statusIndex === null) return null;
    const at = statusEntryLocation(row.statusIndex, STATUS_LIST_BITS);
    const p = new SqlParams();
    const now = p.add(new Date());
    const listId = p.add(row.statusListId);
    const offset = `${p.add(at.offset)}::int`;
    const mask = `${p.add(1 << at.shift)}::int`;
    const { rows } = await db.sql.query<CredentialRow>(
      `WITH revoked AS (
       UPDATE "Credential" SET "status" = 'revoked', "revokedAt" = ${now}::timestamp(3)
        WHERE "id" = ${p.add(row.id)} AND "status" = 'issued'
       RETURNING *),
     list AS (
       UPDATE "StatusList" SET "version" = "version" + 1, "updatedAt" = ${now}::timestamp(3)
        WHERE "id" = ${listId} AND EXISTS (SELECT 1 FROM revoked)
       RETURNING 1),
     bits AS (
       INSERT INTO "StatusListChunk" ("listId", "chunk", "data")
       SELECT l."id", c."chunk",
              set_byte(decode(repeat('00', least(${STATUS_CHUNK_BYTES},
                                   (l."size" * l."bits" + 7) / 8 - c."chunk" * ${STATUS_CHUNK_BYTES})), 'hex'),
                       ${offset}, ${mask})
         FROM "StatusList" l, (SELECT ${p.add(at.chunk)}::int AS "chunk") c
        WHERE l."id" = ${listId} AND EXISTS (SELECT 1 FROM list)
       ON CONFLICT ("listId", "chunk") DO UPDATE
          SET "data" = set_byte("StatusListChunk"."data", ${offset},
                                get_byte("StatusListChunk"."data", ${offset}) | ${mask})
       RETURNING 1),
     event AS (
       INSERT INTO "OutboxEvent" (${OUTBOX_COLUMNS})
       SELECT ${outboxSelect(p, scopeOfRow(row), "credential.revoked", {
         credentialId: row.id,
         issuerId: row.issuerId,
         credentialConfiguration: configurationIdentifier,
         transactionId: row.transactionId,
         status: "revoked",
       })} FROM revoked)
     SELECT r.* FROM revoked r WHERE EXISTS (SELECT 1 FROM bits)`,
      p.values,
    );
    return rows[0] ?? null;
  },
  /**
   * One statement, shaped as `revoke`'s: changes the credential from `change.from` to `change.to`, bumps
   * the list version (the list row locked first), writes the entry's full 2-bit value into its chunk
   * (clearing both bits, then setting the value, so a suspension (2) becomes a revocation (1) or a valid
   * entry (0) exactly) and writes the event. Nothing happens (null) if the credential is no longer in
   * `change.from`. Keyed by a row `findVisible` or `issuedCopies` gave.
   */
  async changeStatus(
    db: UnitOfWork,
    row: CredentialRow,
    configurationIdentifier: string,
    change: StatusChange,
  ): Promise<CredentialRow | null> {
    if (row.statusListId === null || row.statusIndex === null) return null;
    const at = statusEntryLocation(row.statusIndex, STATUS_LIST_BITS);
    const p = new SqlParams();
    const now = p.add(new Date());
    const listId = p.add(row.statusListId);
    const offset = `${p.add(at.offset)}::int`;
    const keep = `${p.add(0xff ^ (0b11 << at.shift))}::int`;
    const value = `${p.add(change.value << at.shift)}::int`;
    const times =
      change.to === "suspended"
        ? `"suspendedAt" = ${now}::timestamp(3)`
        : change.to === "revoked"
          ? `"revokedAt" = ${now}::timestamp(3)`
          : `"suspendedAt" = NULL`;
    const { rows } = await db.sql.query<CredentialRow>(
      `WITH changed AS (
       UPDATE "Credential" SET "status" = ${p.add(change.to)}, ${times}
        WHERE "id" = ${p.add(row.id)} AND "status" = ${p.add(change.from)}
       RETURNING *),
     list AS (
       UPDATE "StatusList" SET "version" = "version" + 1, "updatedAt" = ${now}::timestamp(3)
        WHERE "id" = ${listId} AND EXISTS (SELECT 1 FROM changed)
       RETURNING 1),
     bits AS (
       INSERT INTO "StatusListChunk" ("listId", "chunk", "data")
       SELECT l."id", c."chunk",
              set_byte(decode(repeat('00', least(${STATUS_CHUNK_BYTES},
                                   (l."size" * l."bits" + 7) / 8 - c."chunk" * ${STATUS_CHUNK_BYTES})), 'hex'),
                       ${offset}, ${value})
         FROM "StatusList" l, (SELECT ${p.add(at.chunk)}::int AS "chunk") c
        WHERE l."id" = ${listId} AND EXISTS (SELECT 1 FROM list)
       ON CONFLICT ("listId", "chunk") DO UPDATE
          SET "data" = set_byte("StatusListChunk"."data", ${offset},
                                (get_byte("StatusListChunk"."data", ${offset}) & ${keep}) | ${value})
       RETURNING 1),
     event AS (
       INSERT INTO "OutboxEvent" (${OUTBOX_COLUMNS})
       SELECT ${outboxSelect(p, scopeOfRow(row), change.event, {
         credentialId: row.id,
         issuerId: row.issuerId,
         credentialConfiguration: configurationIdentifier,
         transactionId: row.transactionId,
         status: change.eventStatus,
       })} FROM changed)
     SELECT r.* FROM changed r WHERE EXISTS (SELECT 1 FROM bits)`,
      p.values,
    );
    return rows[0] ?? null;
  },

  /** Credentials_Get: the credential with its configuration identifier and version, if the caller may see it. */
  async readVisible(db: UnitOfWork, scope: TenantScope, issuerId: string | null, credentialId: string) {
    const { rows } = await db.sql.query<CredentialReadRow>(
      `${READ_SELECT}
        WHERE c."id" = $1 AND c."tenantId" = $2 AND c."environment" = $3 AND ($4::text IS NULL OR c."issuerId" = $4)`,
      [credentialId, scope.tenantId, scope.environment, issuerId],
    );
    return rows[0] ?? null;
  },

  /**
   * Credentials_List: the caller's partition (and, for an issuer-bound key, its issuer), newest first
   * (ids are time-ordered), from before `beforeId`; `take` rows. Each filter has an index in list order.
   */
  async list(
    db: UnitOfWork,
    scope: TenantScope,
    issuerId: string | null,
    filters: CredentialFilters,
    page: { beforeId: string | undefined; take: number; now: Date },
  ) {
    const p = new SqlParams();
    const where = [
      `c."tenantId" = ${p.add(scope.tenantId)}`,
      `c."environment" = ${p.add(scope.environment)}`,
    ];
    if (issuerId !== null) where.push(`c."issuerId" = ${p.add(issuerId)}`);
    if (filters.issuerId !== undefined) where.push(`c."issuerId" = ${p.add(filters.issuerId)}`);
    if (filters.transactionId !== undefined)
      where.push(`c."transactionId" = ${p.add(filters.transactionId)}`);
    if (filters.credentialConfiguration !== undefined) {
      where.push(`c."configurationId" IN (SELECT k."id" FROM "CredentialConfiguration" k
                   WHERE k."tenantId" = $1 AND k."environment" = $2
                     AND k."identifier" = ${p.add(filters.credentialConfiguration)})`);
    }
    if (filters.externalSubjectReference !== undefined) {
      where.push(`c."transactionId" IN (SELECT s."id" FROM "IssuanceTransaction" s
                   WHERE s."tenantId" = $1 AND s."environment" = $2
                     AND s."externalSubjectReference" = ${p.add(filters.externalSubjectReference)})`);
    }
    if (filters.issuedFrom !== undefined)
      where.push(`c."issuedAt" >= ${p.add(filters.issuedFrom)}::timestamp(3)`);
    if (filters.issuedTo !== undefined) where.push(`c."issuedAt" < ${p.add(filters.issuedTo)}::timestamp(3)`);
    if (filters.state !== undefined) {
      const now = () => `${p.add(page.now)}::timestamp(3)`;
      where.push(
        filters.state === "revoked"
          ? `c."status" = 'revoked'`
          : filters.state === "expired"
            ? `c."status" IN ('issued', 'suspended') AND c."expiresAt" <= ${now()}`
            : `c."status" = ${p.add(filters.state === "active" ? "issued" : "suspended")} AND c."expiresAt" > ${now()}`,
      );
    }
    if (page.beforeId !== undefined) where.push(`c."id" < ${p.add(page.beforeId)}`);
    const { rows } = await db.sql.query<CredentialReadRow>(
      `${READ_SELECT} WHERE ${where.join(" AND ")} ORDER BY c."id" DESC LIMIT ${p.add(page.take)}::int`,
      p.values,
    );
    return rows;
  },
};
