import { type Db, sqlFor } from "@cred/db";
import { authorizationResponseUrl } from "@cred/oid4vc";
import type { AppDeps } from "../context";
import { DomainError, notFound } from "../shared/errors";
import { randomToken } from "../shared/ids";
import type { Principal } from "../shared/principal";
import { hashSecret } from "../shared/secret-box";
import { findVisibleTransaction } from "./get-issuance-transaction";
import type { TCompleteAuthorizationRequest } from "./issuance.schema";
import { issuerUrls } from "./issuance-urls";
import { AUTHORIZATION_CODE_LIFETIME_SECONDS } from "./wallet/authorization";

/**
 * IssuanceTransactions_CompleteAuthorization: the integrator's answer for a person sent to the issuer's
 * authorization page. The interaction handle is spent (once, within its 10 minutes, for this transaction
 * only) and, when approved while the offer is still pending, an authorization code recorded for the
 * wallet, in one statement. Returns where to send the person's browser: the wallet's redirect URI with
 * the code, or with `access_denied`. 404 for a transaction or handle the caller cannot see; 409 for a
 * handle already completed or expired.
 */
export async function completeAuthorization(
  deps: Pick<AppDeps, "config" | "database">,
  db: Db,
  principal: Principal,
  input: TCompleteAuthorizationRequest,
) {
  const transaction = await findVisibleTransaction(db, principal, input.transactionId);
  const sql = sqlFor(db, deps.database.prisma, deps.database.fast);
  const interactionHash = hashSecret(input.interaction);
  const code = input.decision === "approve" ? randomToken(32) : null;
  const now = new Date();
  const codeExpiresAt = code && new Date(now.getTime() + AUTHORIZATION_CODE_LIFETIME_SECONDS * 1000);
  const { rows } = await sql.query<{ redirectUri: string; state: string | null; offerPending: boolean }>(
    `WITH pending AS (
       SELECT a."id", EXISTS (
         SELECT 1 FROM "IssuanceTransaction" t
          WHERE t."id" = a."transactionId" AND t."status" = 'pending' AND t."expiresAt" > $3::timestamp(3)
            AND t."codeRedeemedAt" IS NULL) AS "offerPending"
         FROM "AuthorizationRequest" a
        WHERE a."interactionHash" = $1 AND a."transactionId" = $2
          AND a."interactionUsedAt" IS NULL AND a."interactionExpiresAt" > $3::timestamp(3))
     UPDATE "AuthorizationRequest" a
        SET "interactionUsedAt" = $3::timestamp(3),
            "codeHash" = CASE WHEN (SELECT "offerPending" FROM pending) THEN $4 END,
            "codeExpiresAt" = CASE WHEN (SELECT "offerPending" FROM pending) THEN $5::timestamp(3) END,
            "expiresAt" = GREATEST(a."expiresAt", $5::timestamp(3))
      WHERE a."id" = (SELECT "id" FROM pending) AND a."interactionUsedAt" IS NULL
      RETURNING a."redirectUri", a."state", (SELECT "offerPending" FROM pending) AS "offerPending"`,
    [interactionHash, transaction.id, now, code && hashSecret(code), codeExpiresAt],
  );
  const completed = rows[0];
  if (!completed) throw await whyNotCompleted(sql, interactionHash, transaction.id);
  const iss = issuerUrls(deps.config, transaction.issuerId).credentialIssuer;
  const state = completed.state ?? undefined;
  if (code && completed.offerPending) {
    return {
      redirectTo: authorizationResponseUrl(completed.redirectUri, { code, state, iss }),
      approved: true,
    };
  }
  const error_description = code
    ? "The credential offer is no longer available: it was cancelled, expired or already used."
    : "The person did not authorize the issuance of this credential.";
  return {
    redirectTo: authorizationResponseUrl(completed.redirectUri, {
      error: "access_denied",
      error_description,
      state,
      iss,
    }),
    approved: false,
  };
}

async function whyNotCompleted(
  sql: ReturnType<typeof sqlFor>,
  interactionHash: string,
  transactionId: string,
) {
  const { rows } = await sql.query<{ interactionUsedAt: Date | null }>(
    `SELECT "interactionUsedAt" FROM "AuthorizationRequest" WHERE "interactionHash" = $1 AND "transactionId" = $2`,
    [interactionHash, transactionId],
  );
  const known = rows[0];
  if (!known) return notFound("The authorization interaction");
  return new DomainError(
    "InvalidState",
    known.interactionUsedAt
      ? "This authorization interaction was already completed."
      : "This authorization interaction has expired: the person starts again from the wallet.",
  );
}
