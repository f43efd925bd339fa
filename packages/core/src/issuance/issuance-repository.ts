import { Prisma, type UnitOfWork } from "@cred/db";
import type { Caches } from "../shared/caches";
import type { IdWindow } from "../shared/newest-first";
import { OUTBOX_COLUMNS, outboxSelect, SqlParams } from "../shared/outbox-sql";
import type { TenantScope } from "../shared/principal";
import type { IssuanceTransactionRow } from "./issuance-transaction-dto";
import { createdOffers } from "./wallet/created-offers";
import type { CheckedNonce } from "./wallet/nonce";

export interface NewIssuanceTransaction {
  id: string;
  tenantId: string;
  environment: string;
  issuerId: string;
  configurationId: string;
  configurationIdentifier: string;
  configurationVersion: number;
  status: string;
  /** Null for a deferred transaction until its claims are supplied. */
  claimsCipher: string | null;
  callbackReference: string | null;
  externalSubjectReference: string | null;
  offerBy: string;
  offerCipher: string;
  offerHandleHash: string;
  preAuthorizedCodeHash: string | null;
  issuerStateHash: string | null;
  txCodeHash: string | null;
  txCodeSpec: unknown;
  expiresAt: Date;
  createdAt: Date;
  deferred: boolean;
  deferredWaitSeconds: number | null;
}

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
  notificationId: string | null;
  issuedAt: Date;
  expiresAt: Date;
  /** RFC 7638 thumbprint of the holder key in `cnf.jwk`; null for a credential without holder binding. */
  holderKeyThumbprint: string | null;
}

export interface OutboxEventInput {
  scope: TenantScope;
  type: string;
  data: Record<string, unknown>;
}

/**
 * The statement that records `nonces` as spent, one row each, returning a row per nonce not spent before
 * (so a caller compares the count); a statement returning nothing when there are none.
 */
function spendNoncesSql(p: SqlParams, nonces: CheckedNonce[]) {
  if (nonces.length === 0) return "SELECT 1 WHERE false";
  return `INSERT INTO "WalletNonce" ("valueHash", "purpose", "expiresAt")
         VALUES ${nonces.map((n) => `(${p.add(n.valueHash)}, 'vci', ${p.add(n.expiresAt)}::timestamp(3))`).join(", ")}
         ON CONFLICT DO NOTHING RETURNING 1`;
}

/**
 * The issuance transaction's rows: the management side reads and writes them within the caller's tenant
 * scope; the wallet side finds them by an unguessable hash (offer handle) or by the id of a transaction
 * such a lookup, or authorization-server's access-token lookup, gave, since no tenant is known there. Issuance writes on the hot path are
 * single statements: each change and its outbox event are written by one `WITH … INSERT` (atomic without
 * an interactive transaction; one round trip instead of four).
 */
export const issuanceRepository = {
  /** The transaction, if the caller may see it: in its tenant scope and, for an issuer-bound key, of its issuer. */
  findVisible(db: UnitOfWork, scope: TenantScope, issuerId: string | null, id: string) {
    return db.prisma.issuanceTransaction.findFirst({
      where: {
        id,
        tenantId: scope.tenantId,
        environment: scope.environment,
        ...(issuerId ? { issuerId } : {}),
      },
    });
  },

  /** Takes the transaction's row lock until the unit's transaction ends (concurrent changes queue). */
  async lockForUpdate(db: UnitOfWork, scope: TenantScope, id: string): Promise<void> {
    await db.sql.query(
      `SELECT 1 FROM "IssuanceTransaction" WHERE "id" = $1 AND "tenantId" = $2 AND "environment" = $3 FOR UPDATE`,
      [id, scope.tenantId, scope.environment],
    );
  },

  /**
   * pending → cancelled, if still pending and unexpired at `now` (a wallet redeeming the offer at the same
   * moment wins or loses atomically): drops its claims, offer and grant secrets, deletes its access tokens,
   * and forgets the offer this process remembered once the cancellation commits. False when it was no
   * longer pending (nothing written). Run it in a transaction: the update and the deletion go together.
   */
  async cancelPending(db: UnitOfWork, caches: Caches, scope: TenantScope, id: string, now: Date) {
    const { count } = await db.prisma.issuanceTransaction.updateMany({
      where: { id, ...scope, status: "pending", expiresAt: { gt: now } },
      data: {
        status: "cancelled",
        cancelledAt: now,
        claimsCipher: null,
        offerCipher: null,
        preAuthorizedCodeHash: null,
        issuerStateHash: null,
        offerHandleHash: null,
        deferredIdHash: null,
        deferredHolderKeys: Prisma.DbNull,
      },
    });
    if (count === 0) return false;
    db.afterCommit(() => createdOffers.forget(caches, id));
    await db.prisma.accessToken.deleteMany({ where: { transactionId: id } });
    return true;
  },

  /** The transaction as stored now, in the caller's tenant scope (one it has just changed). */
  findInScopeOrThrow(db: UnitOfWork, scope: TenantScope, id: string) {
    return db.prisma.issuanceTransaction.findUniqueOrThrow({ where: { id, ...scope } });
  },

  /** Records the sealed claims of a deferred transaction; the updated row. */
  supplyClaims(db: UnitOfWork, scope: TenantScope, id: string, claimsCipher: string, now: Date) {
    return db.prisma.issuanceTransaction.update({
      where: { id, ...scope },
      data: { claimsCipher, claimsSuppliedAt: now },
    });
  },

  /**
   * Wallet side: the transaction whose offer handle hashes to `offerHandleHash` (unguessable; the caller
   * checks the issuer of the URL), with the time its code was redeemed.
   */
  async findByOfferHandleHash(db: UnitOfWork, offerHandleHash: string) {
    const { rows } = await db.sql.query<IssuanceTransactionRow & { codeRedeemedAt: Date | null }>(
      `SELECT * FROM "IssuanceTransaction" WHERE "offerHandleHash" = $1`,
      [offerHandleHash],
    );
    return rows[0] ?? null;
  },

  /**
   * Wallet side: the transaction read afresh by its id, which the caller got from a checked access token
   * (authorization-server's `transactionForToken`), so its tenant is the token's.
   */
  findById(db: UnitOfWork, id: string) {
    return db.prisma.issuanceTransaction.findUnique({ where: { id } });
  },

  /**
   * Locks every credential of an issuance transaction (the copies of a batch), in id order. Whatever
   * updates several copies in one database transaction (a batch revocation, a wallet notification) takes
   * this first, so two of them queue instead of each holding some copies and waiting for the others
   * (PostgreSQL: deadlock detected). The embedded database runs one transaction at a time anyway. Keyed by
   * the id of a transaction the caller read in its scope (or through a checked access token).
   */
  async lockBatch(db: UnitOfWork, transactionId: string): Promise<void> {
    await db.sql.query(`SELECT 1 FROM "Credential" WHERE "transactionId" = $1 ORDER BY "id" FOR UPDATE`, [
      transactionId,
    ]);
  },

  /** Writes a new transaction (its tenant in the row) with its event, in one statement. */
  async insertWithEvent(db: UnitOfWork, row: NewIssuanceTransaction, event: OutboxEventInput) {
    const p = new SqlParams();
    const values = [
      row.id,
      row.tenantId,
      row.environment,
      row.issuerId,
      row.configurationId,
      row.configurationIdentifier,
      row.configurationVersion,
      row.status,
      row.claimsCipher,
      row.callbackReference,
      row.externalSubjectReference,
      row.offerBy,
      row.offerCipher,
      row.offerHandleHash,
      row.preAuthorizedCodeHash,
      row.issuerStateHash,
      row.txCodeHash,
      row.deferred,
      row.deferredWaitSeconds,
    ].map((v) => p.add(v));
    const { affected } = await db.sql.query(
      `WITH created AS (
         INSERT INTO "IssuanceTransaction" ("id", "tenantId", "environment", "issuerId", "configurationId",
           "configurationIdentifier", "configurationVersion", "status", "claimsCipher", "callbackReference",
           "externalSubjectReference", "offerBy", "offerCipher", "offerHandleHash", "preAuthorizedCodeHash",
           "issuerStateHash", "txCodeHash", "deferred", "deferredWaitSeconds", "txCodeSpec", "expiresAt", "createdAt", "updatedAt")
         VALUES (${values.join(", ")}, ${p.add(row.txCodeSpec === null ? null : JSON.stringify(row.txCodeSpec))}::jsonb,
           ${p.add(row.expiresAt)}::timestamp(3), ${p.add(row.createdAt)}::timestamp(3), ${p.add(row.createdAt)}::timestamp(3))
         RETURNING "id")
       INSERT INTO "OutboxEvent" (${OUTBOX_COLUMNS})
       SELECT ${outboxSelect(p, event.scope, event.type, event.data)} FROM created
       RETURNING "id"`,
      p.values,
    );
    if (affected !== 1) throw new Error("issuance transaction insert wrote no event");
  },

  /**
   * Records credentials issued to a wallet's credential request in ONE statement, with their event, and
   * spends the proofs' `c_nonce`s in it. The first request completes the pending transaction
   * (`completedEvent`); while the access token lives, each further one (OpenID4VCI §14.3, with
   * `reissuedEvent`) adds its credentials to the completed transaction. The sealed claims stay for those
   * requests, until the token expires (authorization-server's `claimsOfSpentTokensSql`) or a credential of the transaction is
   * revoked (`stopReissue`). Nothing is written unless the transaction is pending and unexpired (or, for a
   * further request, completed), still has its claims, the access token is valid and every nonce unspent
   * (a replay, even a concurrent one, finds the spent record).
   *
   * Concurrency: the statement updates the transaction row, so requests with one token queue on its lock,
   * and each re-reads the row after the one before commits (PostgreSQL's read committed). The first
   * credential id is kept (`COALESCE`): the statement that wrote its own is the one that completed the
   * transaction, so the completion event is written exactly once. A status index taken meanwhile fails
   * the whole statement on the unique (list, index) constraint, so the caller draws again.
   *
   * Wallet side: keyed by the transaction of a checked access token, whose hash the statement checks again.
   */
  async recordCredentials(
    db: UnitOfWork,
    issuance: {
      transactionId: string;
      accessTokenHash: string;
      now: Date;
      nonces: CheckedNonce[];
      credentials: NewCredential[];
      completedEvent: OutboxEventInput;
      /** Null: the transaction must be pending (the deferred endpoint delivers once). */
      reissuedEvent: OutboxEventInput | null;
      /**
       * For a deferred transaction: its token, extended while it waited, lives no longer than this, and
       * its deferred id and holder keys are dropped.
       */
      capTokenAt?: Date;
      /** Drop the claims with this issuance (nothing is issued again from them). */
      dropClaims?: boolean;
    },
  ): Promise<
    { outcome: "issued"; completed: boolean } | { outcome: "nonce_spent" | "token_invalid" | "not_issuable" }
  > {
    const { credentials, now, nonces, completedEvent, reissuedEvent } = issuance;
    const p = new SqlParams();
    const rows = credentials.map(
      (c) =>
        `(${p.add(c.id)}::text, ${p.add(c.tenantId)}::text, ${p.add(c.environment)}::text, ${p.add(c.issuerId)}::text,
          ${p.add(c.configurationId)}::text, ${p.add(c.transactionId)}::text, 'issued', ${p.add(c.statusListId)}::text,
          ${p.add(c.statusIndex)}::int, ${p.add(c.digest)}::text,
          ${p.add(c.notificationId)}::text, ${p.add(c.issuedAt)}::timestamp(3), ${p.add(c.expiresAt)}::timestamp(3),
          ${p.add(c.holderKeyThumbprint)}::text)`,
    );
    const nowParam = p.add(now);
    const spent = spendNoncesSql(p, nonces);
    const tokenHash = p.add(issuance.accessTokenHash);
    const firstId = p.add(credentials[0]!.id);
    const { rows: result } = await db.sql.query<{
      issued: number;
      completed: boolean;
      spent: number;
      tokenLive: number;
    }>(
      `WITH spent AS (${spent}),
       done AS (
         UPDATE "IssuanceTransaction" t
            SET "status" = 'completed', "completedAt" = COALESCE(t."completedAt", ${nowParam}::timestamp(3)),
                "credentialId" = COALESCE(t."credentialId", ${firstId}::text), "offerCipher" = NULL,
                "offerHandleHash" = NULL,${issuance.dropClaims ? ` "claimsCipher" = NULL,` : ""}${
                  issuance.capTokenAt ? ` "deferredIdHash" = NULL, "deferredHolderKeys" = NULL,` : ""
                } "updatedAt" = ${nowParam}::timestamp(3)
          WHERE t."id" = ${p.add(issuance.transactionId)} AND t."claimsCipher" IS NOT NULL
            AND ((t."status" = 'pending' AND t."expiresAt" > ${nowParam}::timestamp(3))${
              reissuedEvent ? ` OR t."status" = 'completed'` : ""
            })
            AND (SELECT count(*) FROM spent) = ${p.add(nonces.length)}
            AND EXISTS (SELECT 1 FROM "AccessToken" a WHERE a."tokenHash" = ${tokenHash}
                          AND a."transactionId" = t."id" AND a."expiresAt" > ${nowParam}::timestamp(3))
         RETURNING t."credentialId" = ${firstId}::text AS "first"),
       issued AS (
         INSERT INTO "Credential" ("id", "tenantId", "environment", "issuerId", "configurationId", "transactionId",
           "status", "statusListId", "statusIndex", "digest", "notificationId", "issuedAt", "expiresAt",
           "holderKeyThumbprint")
         SELECT v.* FROM (VALUES ${rows.join(", ")}) AS v WHERE EXISTS (SELECT 1 FROM done)
         RETURNING "id"),
       completion AS (
         INSERT INTO "OutboxEvent" (${OUTBOX_COLUMNS})
         SELECT ${outboxSelect(p, completedEvent.scope, completedEvent.type, completedEvent.data)}
           FROM done WHERE done."first")${
             reissuedEvent
               ? `,
       reissue AS (
         INSERT INTO "OutboxEvent" (${OUTBOX_COLUMNS})
         SELECT ${outboxSelect(p, reissuedEvent.scope, reissuedEvent.type, reissuedEvent.data)}
           FROM done WHERE NOT done."first")`
               : ""
           }${
             issuance.capTokenAt
               ? `,
       capped AS (
         UPDATE "AccessToken" a SET "expiresAt" = LEAST(a."expiresAt", ${p.add(issuance.capTokenAt)}::timestamp(3))
          WHERE a."tokenHash" = ${tokenHash} AND EXISTS (SELECT 1 FROM done)
         RETURNING 1)`
               : ""
           }
       SELECT (SELECT count(*) FROM done)::int AS "issued", COALESCE((SELECT "first" FROM done), false) AS "completed",
              (SELECT count(*) FROM spent)::int AS "spent",
              (SELECT count(*) FROM "AccessToken" a WHERE a."tokenHash" = ${tokenHash}
                  AND a."expiresAt" > ${nowParam}::timestamp(3))::int AS "tokenLive"`,
      p.values,
    );
    const outcome = result[0];
    if (outcome?.issued === 1) return { outcome: "issued", completed: outcome.completed };
    // The token went with a cancellation or expiry since it was checked (perhaps from this process's
    // memory of it): the same 401 a fresh read of the token would have given.
    if (outcome?.tokenLive === 0) return { outcome: "token_invalid" };
    return { outcome: (outcome?.spent ?? 0) < nonces.length ? "nonce_spent" : "not_issuable" };
  },

  /**
   * Ends further issuance from a completed transaction (a credential of it is being revoked): drops its
   * sealed claims. The update locks the transaction row, so it waits for an issuing statement in flight
   * (`recordCredentials`), whose credentials a read after it sees; any later one finds no claims and
   * issues nothing. Keyed by the transaction of a credential the caller read in its tenant scope.
   */
  async stopReissue(db: UnitOfWork, transactionId: string, now: Date): Promise<void> {
    await db.sql.query(
      `UPDATE "IssuanceTransaction" SET "claimsCipher" = NULL, "updatedAt" = $2::timestamp(3)
        WHERE "id" = $1 AND "status" = 'completed' RETURNING 1`,
      [transactionId, now],
    );
  },

  /**
   * Defers a deferred transaction's credential request while its claims are awaited, in ONE statement:
   * spends the nonces, keeps the holder keys and the hash of the wallet's `transaction_id`, extends the
   * transaction to its deferred wait, lets the access token live as long, and records the event. Nothing
   * is written unless the transaction is pending, unexpired, not yet deferred, still without claims, the
   * token valid and every nonce unspent; "not_deferred" leaves it to the caller to read why afresh (a
   * concurrent IssuanceTransactions_SupplyClaims commits after this statement's snapshot).
   *
   * Wallet side: keyed by the transaction of a checked access token, whose hash the statement checks again.
   */
  async deferWithEvent(
    db: UnitOfWork,
    deferral: {
      transactionId: string;
      accessTokenHash: string;
      now: Date;
      nonces: CheckedNonce[];
      deferredIdHash: string;
      holderKeys: unknown;
      event: OutboxEventInput;
    },
  ): Promise<"deferred" | "nonce_spent" | "token_invalid" | "not_deferred"> {
    const { now, nonces, event } = deferral;
    const p = new SqlParams();
    const nowParam = p.add(now);
    const id = p.add(deferral.transactionId);
    const tokenHash = p.add(deferral.accessTokenHash);
    const spent = spendNoncesSql(p, nonces);
    const { rows } = await db.sql.query<{ deferred: number; spent: number; tokenLive: number }>(
      `WITH spent AS (${spent}),
       deferred AS (
         UPDATE "IssuanceTransaction" t
            SET "deferredIdHash" = ${p.add(deferral.deferredIdHash)},
                "deferredHolderKeys" = ${p.add(JSON.stringify(deferral.holderKeys))}::jsonb,
                "deferredAt" = ${nowParam}::timestamp(3),
                "expiresAt" = GREATEST(t."expiresAt",
                  ${nowParam}::timestamp(3) + COALESCE(t."deferredWaitSeconds", 0) * interval '1 second'),
                "updatedAt" = ${nowParam}::timestamp(3)
          WHERE t."id" = ${id} AND t."status" = 'pending' AND t."deferred" AND t."deferredIdHash" IS NULL
            AND t."claimsCipher" IS NULL AND t."expiresAt" > ${nowParam}::timestamp(3)
            AND (SELECT count(*) FROM spent) = ${p.add(nonces.length)}
            AND EXISTS (SELECT 1 FROM "AccessToken" a WHERE a."tokenHash" = ${tokenHash}
                          AND a."transactionId" = t."id" AND a."expiresAt" > ${nowParam}::timestamp(3))
         RETURNING t."id", t."expiresAt"),
       token AS (
         UPDATE "AccessToken" a SET "expiresAt" = GREATEST(a."expiresAt", (SELECT "expiresAt" FROM deferred))
          WHERE a."tokenHash" = ${tokenHash} AND EXISTS (SELECT 1 FROM deferred)
         RETURNING 1),
       event AS (
         INSERT INTO "OutboxEvent" (${OUTBOX_COLUMNS})
         SELECT ${outboxSelect(p, event.scope, event.type, event.data)} FROM deferred)
       SELECT (SELECT count(*) FROM deferred)::int AS "deferred", (SELECT count(*) FROM spent)::int AS "spent",
              (SELECT count(*) FROM "AccessToken" a WHERE a."tokenHash" = ${tokenHash}
                  AND a."expiresAt" > ${nowParam}::timestamp(3))::int AS "tokenLive"`,
      p.values,
    );
    const outcome = rows[0];
    if (outcome?.deferred === 1) return "deferred";
    if (outcome?.tokenLive === 0) return "token_invalid";
    if ((outcome?.spent ?? 0) < nonces.length) return "nonce_spent";
    return "not_deferred";
  },

  /**
   * IssuanceTransactions_List: newest first, keyset on id within `ids`, in the caller's partition. `status`
   * is the state a caller sees: a pending row past its expiry counts as expired (nothing is written here;
   * the sweeper and single reads settle it).
   */
  list(
    db: UnitOfWork,
    scope: TenantScope,
    filter: IssuanceListFilter,
    page: { ids: IdWindow; take: number },
  ) {
    const where: Prisma.IssuanceTransactionWhereInput = {
      tenantId: scope.tenantId,
      environment: scope.environment,
    };
    if (page.ids.lt !== undefined || page.ids.gte !== undefined) where.id = { ...page.ids };
    if (filter.status === "pending") {
      where.status = "pending";
      where.expiresAt = { gt: filter.now };
    } else if (filter.status === "expired") {
      where.status = { in: ["expired", "pending"] };
      where.OR = [{ status: "expired" }, { expiresAt: { lte: filter.now } }];
    } else if (filter.status !== undefined) where.status = filter.status;
    if (filter.issuerId !== undefined) where.issuerId = filter.issuerId;
    if (filter.configurationIdentifier !== undefined)
      where.configurationIdentifier = filter.configurationIdentifier;
    if (filter.externalSubjectReference !== undefined)
      where.externalSubjectReference = filter.externalSubjectReference;
    if (filter.callbackReference !== undefined) where.callbackReference = filter.callbackReference;
    if (filter.createdAt !== undefined) where.createdAt = filter.createdAt;
    return db.prisma.issuanceTransaction.findMany({ where, orderBy: { id: "desc" }, take: page.take });
  },
};

export interface IssuanceListFilter {
  /** The state the caller sees (effectiveStatus at `now`). */
  status?: string;
  now: Date;
  issuerId?: string;
  configurationIdentifier?: string;
  externalSubjectReference?: string;
  callbackReference?: string;
  createdAt?: { gte?: Date; lt?: Date };
}
