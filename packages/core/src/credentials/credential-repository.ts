import type { Db, UnitOfWork } from "@cred/db";
import { STATUS_CHUNK_BYTES, STATUS_LIST_BITS, statusEntryLocation } from "../issuers";
import { OUTBOX_COLUMNS, outboxSelect, SqlParams } from "../shared/outbox-sql";
import type { TenantScope } from "../shared/principal";
import { scopeOfRow } from "../shared/scope-of";

export type CredentialRow = NonNullable<Awaited<ReturnType<Db["credential"]["findUnique"]>>>;

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
   * The copies of a batch still issued, in one order (list, index), so concurrent revocations lock the
   * lists alike. Keyed by the transaction of a credential `findVisible` gave.
   */
  async issuedCopies(db: UnitOfWork, transactionId: string) {
    const { rows } = await db.sql.query<CredentialRow>(
      `SELECT * FROM "Credential" WHERE "transactionId" = $1 AND "status" = 'issued'
        ORDER BY "statusListId", "statusIndex"`,
      [transactionId],
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
};
