import type { UnitOfWork } from "@cred/db";
import type { IssuanceTransactionRecord } from "./redeemed-transactions";

/**
 * A statement (for a `WITH`) dropping the sealed claims of completed transactions whose access tokens
 * are going in the same statement, from the CTE `gone` ("transactionId", "tokenHash"), unless another
 * token of theirs still lives past `now` (a parameter): a completed transaction keeps its claims only for
 * further requests with its token (OpenID4VCI §14.3). The statement does not see the deletion it rides
 * with, hence the tokens of `gone` are left out of the check by hand. Used wherever access tokens are
 * deleted: a reused authorization code here, expired tokens by the sweeper (events/purge-expired.ts).
 */
export function claimsOfSpentTokensSql(gone: string, now: string) {
  return `UPDATE "IssuanceTransaction" t SET "claimsCipher" = NULL
     WHERE t."id" = ANY(ARRAY(SELECT DISTINCT "transactionId" FROM ${gone}))
       AND t."status" = 'completed' AND t."claimsCipher" IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM "AccessToken" a
                        WHERE a."transactionId" = t."id" AND a."expiresAt" > ${now}
                          AND a."tokenHash" NOT IN (SELECT "tokenHash" FROM ${gone}))
    RETURNING 1`;
}

/**
 * Access tokens (`AccessToken`), as the authorization server issued them for a transaction. Tokens are
 * found by the hash of the token the wallet presents, which names no tenant: the caller checks the
 * transaction's issuer.
 */
export const accessTokenRepository = {
  /** The transaction an unexpired access token (by its hash) was issued for, and the key it is bound to. */
  async transactionOfToken(
    db: UnitOfWork,
    tokenHash: string,
    now: Date,
  ): Promise<{ row: IssuanceTransactionRecord; dpopJkt: string | null } | null> {
    const { rows } = await db.sql.query<IssuanceTransactionRecord & { tokenDpopJkt: string | null }>(
      `SELECT t.*, a."dpopJkt" AS "tokenDpopJkt" FROM "AccessToken" a
         JOIN "IssuanceTransaction" t ON t."id" = a."transactionId"
        WHERE a."tokenHash" = $1 AND a."expiresAt" > $2::timestamp(3)`,
      [tokenHash, now],
    );
    const found = rows[0];
    if (!found) return null;
    const { tokenDpopJkt, ...row } = found;
    return { row, dpopJkt: tokenDpopJkt };
  },

  /**
   * Revokes the access token an authorization request's code obtained (only that one: another code of
   * the same offer may hold the offer's token), and with it the sealed claims a completed transaction
   * kept for further requests with that token. By transaction first: its index finds the few rows.
   */
  async revokeTokenOfAuthorizationRequest(
    db: UnitOfWork,
    request: { id: string; transactionId: string },
    now: Date,
  ): Promise<void> {
    await db.sql.query(
      `WITH gone AS (
         DELETE FROM "AccessToken" WHERE "transactionId" = $1 AND "authorizationRequestId" = $2
         RETURNING "transactionId", "tokenHash"),
       claims AS (${claimsOfSpentTokensSql("gone", "$3::timestamp(3)")})
       SELECT count(*)::int AS "revoked" FROM gone`,
      [request.transactionId, request.id, now],
    );
  },
};
