import type { UnitOfWork } from "@cred/db";
import type { Caches } from "../shared/caches";
import { type IssuanceTransactionRecord, redeemedTransactions } from "./redeemed-transactions";

/**
 * SQL: whether the offer of the transaction `transactionId` (an SQL expression) can still be redeemed
 * by an authorization code at `now` (a timestamp parameter): pending, unexpired, not yet redeemed.
 */
export const offerRedeemableSql = (transactionId: string, now: string) =>
  `EXISTS (
     SELECT 1 FROM "IssuanceTransaction" t
      WHERE t."id" = ${transactionId} AND t."status" = 'pending' AND t."expiresAt" > ${now}::timestamp(3)
        AND t."codeRedeemedAt" IS NULL)`;

/** A new access token: its hash, expiry and the DPoP key it is bound to (null: a bearer token). */
export interface NewAccessToken {
  hash: string;
  expiresAt: Date;
  dpopJkt: string | null;
}

/** Remembers the redeemed row for the token's credential request, once the redemption is committed. */
function remember(db: UnitOfWork, caches: Caches, row: IssuanceTransactionRecord, token: NewAccessToken) {
  db.afterCommit(() =>
    caches
      .of(redeemedTransactions)
      .set(token.hash, { row, tokenExpiresAt: token.expiresAt.getTime(), dpopJkt: token.dpopJkt }),
  );
}

/**
 * The redemption state of issuance transactions, as the token and PAR endpoints see it: the grant's
 * secrets (`preAuthorizedCodeHash`, `issuerStateHash`, `txCodeHash`), `codeRedeemedAt`, the count of wrong
 * tx_codes and the expiry a redemption extends; a redemption stores the access token in the same
 * statement. The issuance slice owns the rest of the row (docs/adr/0020-authorization-server-slice.md).
 * Lookups are keyed by a hash of an unguessable code or state that names no tenant; the caller checks
 * the row's issuer.
 */
export const redemptionRepository = {
  /**
   * The common case in one statement: an offer of `issuerId` without tx_code, pending, unexpired, code
   * unused → redeemed (extended to at least the token's expiry) and its access token stored. Returns the
   * redeemed row, remembered for the token's credential request, or null when any of that does not hold.
   */
  async redeemPreAuthorizedWithoutTxCode(
    db: UnitOfWork,
    caches: Caches,
    redemption: { issuerId: string; codeHash: string; now: Date; token: NewAccessToken },
  ): Promise<IssuanceTransactionRecord | null> {
    const { issuerId, codeHash, now, token } = redemption;
    const { rows } = await db.sql.query<IssuanceTransactionRecord>(
      `WITH redeemed AS (
         UPDATE "IssuanceTransaction"
            SET "codeRedeemedAt" = $1::timestamp(3), "preAuthorizedCodeHash" = NULL, "updatedAt" = $1::timestamp(3),
                "expiresAt" = GREATEST("expiresAt", $5::timestamp(3))
          WHERE "preAuthorizedCodeHash" = $2 AND "issuerId" = $3 AND "codeRedeemedAt" IS NULL
            AND "txCodeHash" IS NULL AND "status" = 'pending' AND "expiresAt" > $1::timestamp(3)
         RETURNING *),
       issued AS (
         INSERT INTO "AccessToken" ("tokenHash", "transactionId", "expiresAt", "dpopJkt")
         SELECT $4, "id", $5::timestamp(3), $6 FROM redeemed
         RETURNING "transactionId")
       SELECT r.* FROM redeemed r JOIN issued i ON i."transactionId" = r."id"`,
      [now, codeHash, issuerId, token.hash, token.expiresAt, token.dpopJkt],
    );
    const row = rows[0] ?? null;
    if (row) remember(db, caches, row, token);
    return row;
  },

  /** The transaction whose offer holds this pre-authorized code (by its hash), whatever its state. */
  async transactionByPreAuthorizedCode(
    db: UnitOfWork,
    codeHash: string,
  ): Promise<IssuanceTransactionRecord | null> {
    const { rows } = await db.sql.query<IssuanceTransactionRecord>(
      `SELECT * FROM "IssuanceTransaction" WHERE "preAuthorizedCodeHash" = $1`,
      [codeHash],
    );
    return rows[0] ?? null;
  },

  /**
   * Counts a wrong tx_code and, at `maxAttempts`, invalidates the pre-authorized code, in one statement
   * on the row's current count (guesses sent at once all read the row before any failure is recorded, so
   * a count read before may be stale). Returns whether the code is now gone.
   */
  async countWrongTxCode(db: UnitOfWork, transactionId: string, now: Date, maxAttempts: number) {
    const { rows } = await db.sql.query<{ exhausted: boolean }>(
      `UPDATE "IssuanceTransaction" SET "txCodeFailures" = "txCodeFailures" + 1, "updatedAt" = $2::timestamp(3),
              "preAuthorizedCodeHash" = CASE WHEN "txCodeFailures" + 1 >= $3 THEN NULL ELSE "preAuthorizedCodeHash" END
        WHERE "id" = $1 AND "preAuthorizedCodeHash" IS NOT NULL
        RETURNING "preAuthorizedCodeHash" IS NULL AS "exhausted"`,
      [transactionId, now, maxAttempts],
    );
    return rows[0]?.exhausted ?? true;
  },

  /**
   * Redeems a pre-authorized code checked before (tx_code and authorization_details), in one statement:
   * the code is single use under concurrency (only one request can move codeRedeemedAt from null), a
   * right tx_code counts only while the wrong ones recorded so far are under `maxTxCodeFailures`, and the
   * access token exists exactly when the redemption does. False when the code was used meanwhile.
   */
  async redeemPreAuthorizedCode(
    db: UnitOfWork,
    redemption: {
      transactionId: string;
      codeHash: string;
      now: Date;
      maxTxCodeFailures: number;
      token: NewAccessToken;
    },
  ): Promise<boolean> {
    const { now, token } = redemption;
    const { affected } = await db.sql.query(
      `WITH redeemed AS (
         UPDATE "IssuanceTransaction"
            SET "codeRedeemedAt" = $1::timestamp(3), "preAuthorizedCodeHash" = NULL, "updatedAt" = $1::timestamp(3),
                "expiresAt" = GREATEST("expiresAt", $5::timestamp(3))
          WHERE "id" = $2 AND "codeRedeemedAt" IS NULL AND "preAuthorizedCodeHash" = $3 AND "txCodeFailures" < $6
         RETURNING "id")
       INSERT INTO "AccessToken" ("tokenHash", "transactionId", "expiresAt", "dpopJkt")
       SELECT $4, "id", $5::timestamp(3), $7 FROM redeemed
       RETURNING 1`,
      [
        now,
        redemption.transactionId,
        redemption.codeHash,
        token.hash,
        token.expiresAt,
        redemption.maxTxCodeFailures,
        token.dpopJkt,
      ],
    );
    return affected === 1;
  },

  /** The offer whose `issuer_state` has this hash: what the PAR endpoint checks it against. */
  async offerByIssuerState(db: UnitOfWork, issuerStateHash: string) {
    const { rows } = await db.sql.query<{
      id: string;
      issuerId: string;
      status: string;
      expiresAt: Date;
      codeRedeemedAt: Date | null;
      configurationIdentifier: string;
    }>(
      `SELECT "id", "issuerId", "status", "expiresAt", "codeRedeemedAt", "configurationIdentifier"
         FROM "IssuanceTransaction" WHERE "issuerStateHash" = $1`,
      [issuerStateHash],
    );
    return rows[0] ?? null;
  },

  /**
   * Redeems an authorization code in one statement: spends the code (while unused and unexpired), marks
   * its transaction redeemed (while still pending and unredeemed; its issuer_state goes, its expiry is
   * extended to the token's) and stores the access token, linked to the authorization request. The
   * transaction is updated by its key (a parameter): joining the CTE (UPDATE … FROM) let the planner scan
   * the whole table, a cost that grew with every transaction (docs/adr/0003). Returns the redeemed row,
   * remembered for the token's credential request, or null when nothing was redeemed.
   */
  async redeemAuthorizationCode(
    db: UnitOfWork,
    caches: Caches,
    redemption: { requestId: string; transactionId: string; now: Date; token: NewAccessToken },
  ): Promise<IssuanceTransactionRecord | null> {
    const { now, token } = redemption;
    const { rows } = await db.sql.query<IssuanceTransactionRecord>(
      `WITH used AS (
         UPDATE "AuthorizationRequest" SET "codeUsedAt" = $1::timestamp(3)
          WHERE "id" = $2 AND "codeUsedAt" IS NULL AND "codeExpiresAt" > $1::timestamp(3)
         RETURNING "transactionId"),
       redeemed AS (
         UPDATE "IssuanceTransaction" t
            SET "codeRedeemedAt" = $1::timestamp(3), "issuerStateHash" = NULL, "updatedAt" = $1::timestamp(3),
                "expiresAt" = GREATEST(t."expiresAt", $4::timestamp(3))
          WHERE t."id" = $6 AND EXISTS (SELECT 1 FROM used) AND t."status" = 'pending'
            AND t."expiresAt" > $1::timestamp(3) AND t."codeRedeemedAt" IS NULL
         RETURNING t.*),
       issued AS (
         INSERT INTO "AccessToken" ("tokenHash", "transactionId", "expiresAt", "dpopJkt", "authorizationRequestId")
         SELECT $3, "id", $4::timestamp(3), $5, $2 FROM redeemed
         RETURNING "transactionId")
       SELECT r.* FROM redeemed r JOIN issued i ON i."transactionId" = r."id"`,
      [now, redemption.requestId, token.hash, token.expiresAt, token.dpopJkt, redemption.transactionId],
    );
    const row = rows[0] ?? null;
    if (row) remember(db, caches, row, token);
    return row;
  },
};
