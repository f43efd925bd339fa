import type { zCredentialStatus } from "@cred/contracts/credentials";
import type { Db, FastSql, UnitOfWork } from "@cred/db";
import type { z } from "zod";
import { configurationCatalog } from "../credential-configurations";
import { issuanceRepository, lockBatch } from "../issuance";
import { issuerUrls, STATUS_CHUNK_BYTES, STATUS_LIST_BITS, statusEntryLocation } from "../issuers";
import type { AppDeps, CoreConfig } from "../shared/context";
import { DomainError, notFound } from "../shared/errors";
import { OUTBOX_COLUMNS, outboxSelect, SqlParams } from "../shared/outbox-sql";
import type { Principal } from "../shared/principal";
import { scopeOfRow } from "../shared/scope-of";

type CredentialRow = NonNullable<Awaited<ReturnType<Db["credential"]["findUnique"]>>>;

function toDto(
  config: CoreConfig,
  row: CredentialRow,
  configurationIdentifier: string,
): z.infer<typeof zCredentialStatus> {
  return {
    credentialId: row.id,
    status: row.status as "issued" | "revoked",
    issuerId: row.issuerId,
    credentialConfiguration: configurationIdentifier,
    issuedAt: row.issuedAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
    statusList:
      row.statusListId !== null && row.statusIndex !== null
        ? { uri: issuerUrls(config, row.issuerId).statusList(row.statusListId), idx: row.statusIndex }
        : null,
  };
}

/**
 * Revokes a credential: irreversible and immediate. A batch (several copies issued to one wallet in one
 * credential request, OpenID4VCI `batch_credential_issuance`, or in further requests with the same
 * access token, §14.3) is one credential to its holder, so revoking any copy revokes every copy of its
 * issuance transaction, in one database transaction, and ends further issuance from it; the response
 * describes the copy asked for. Revoking again returns the revoked state (200).
 */
export async function revokeCredential(
  deps: Pick<AppDeps, "database" | "config">,
  db: UnitOfWork,
  principal: Principal,
  credentialId: string,
) {
  const sql = db.sql;
  const find = async () => {
    const { rows } = await sql.query<CredentialRow & { copies: number; reissuable: boolean }>(
      `SELECT c.*, (SELECT count(*)::int FROM "Credential" s WHERE s."transactionId" = c."transactionId") AS "copies",
              EXISTS (SELECT 1 FROM "IssuanceTransaction" t
                       WHERE t."id" = c."transactionId" AND t."claimsCipher" IS NOT NULL) AS "reissuable"
         FROM "Credential" c
        WHERE c."id" = $1 AND c."tenantId" = $2 AND c."environment" = $3 AND ($4::text IS NULL OR c."issuerId" = $4)`,
      [credentialId, principal.tenantId, principal.environment, principal.issuerId ?? null],
    );
    return rows[0] ?? null;
  };
  let row = await find();
  if (!row) throw notFound("The credential");
  const configuration = await configurationCatalog.configurationById(deps.database.root, row.configurationId);
  if (!configuration) throw new Error(`configuration ${row.configurationId} of ${row.id} is missing`);
  if (row.statusListId === null || row.statusIndex === null) {
    throw new DomainError(
      "RevocationNotSupported",
      "This credential was issued without a status entry (statusEnabled is false), so it cannot be revoked.",
    );
  }
  if (row.reissuable) {
    // The wallet may still ask for more with its access token (OpenID4VCI §14.3): a revoked credential
    // is not handed out again, so its claims go first; then the copies issued until then are counted.
    await issuanceRepository.stopReissue(sql, row.transactionId, new Date());
    row = await find();
    if (!row) throw notFound("The credential");
  }
  // A revoked copy of a batch still revokes its siblings (copies left valid by an earlier version).
  if (row.status === "revoked" && row.copies <= 1) return toDto(deps.config, row, configuration.identifier);
  let updated: CredentialRow | null = null;
  if (row.copies > 1) {
    await db.transaction(async (tx) => {
      const txSql = tx.sql;
      await lockBatch(txSql, row.transactionId);
      // Every copy, in one order (list, index), so concurrent revocations lock the lists alike.
      const { rows: copies } = await txSql.query<CredentialRow>(
        `SELECT * FROM "Credential" WHERE "transactionId" = $1 AND "status" = 'issued'
          ORDER BY "statusListId", "statusIndex"`,
        [row.transactionId],
      );
      for (const copy of copies) await revokeEntry(txSql, copy, configuration.identifier);
    });
  } else {
    updated = await revokeEntry(sql, row, configuration.identifier);
  }
  // A batch, or a concurrent revocation that got there first: read the state left behind.
  updated ??= await find();
  if (!updated) throw notFound("The credential");
  return toDto(deps.config, updated, configuration.identifier);
}

/**
 * One statement changes the credential, bumps the list version (locking the list row first, so
 * concurrent revocations of a list queue in one order), sets the entry's status bits in its 1 KiB chunk
 * (2 bits per entry, LSB first; `set_byte` on the chunk row under its lock, so neighbours in the same
 * byte never undo each other; the chunk row is created on its first revocation) and writes the event;
 * the next status list fetch, even on another process, shows it. Nothing happens (null) if the
 * credential is no longer `issued`.
 */
async function revokeEntry(
  sql: FastSql,
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
  const { rows } = await sql.query<CredentialRow>(
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
}
