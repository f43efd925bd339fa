import { type Db, sqlFor } from "@cred/db";
import type { AppDeps } from "../context";
import { DomainError, notFound } from "../shared/errors";
import type { Principal } from "../shared/principal";
import { hashSecret } from "../shared/secret-box";
import { findVisibleTransaction } from "./get-issuance-transaction";
import type { TCompleteAuthorizationRequest } from "./issuance.schema";
import { authorizationReturn } from "./wallet/authorization-page";

/**
 * IssuanceTransactions_CompleteAuthorization: the integrator's answer for a person sent to the issuer's
 * authorization page. The interaction handle is spent (once, within its 10 minutes, for this transaction
 * only) and the decision recorded, in one statement. Returns the URL to send the person's browser to:
 * our return endpoint with a one-time result token, which gives the wallet its code (or
 * `access_denied`) only in the browser that opened the authorization endpoint, so that a page link
 * someone forwarded to the person gains them nothing. 404 for a transaction or handle the caller cannot
 * see; 409 for a handle already completed or expired.
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
  const back = authorizationReturn(deps.config, transaction.issuerId);
  const decision = input.decision === "approve" ? "approved" : "denied";
  const { rows } = await sql.query<{ offerPending: boolean }>(
    `WITH pending AS (
       SELECT a."id", EXISTS (
         SELECT 1 FROM "IssuanceTransaction" t
          WHERE t."id" = a."transactionId" AND t."status" = 'pending' AND t."expiresAt" > $3::timestamp(3)
            AND t."codeRedeemedAt" IS NULL) AS "offerPending"
         FROM "AuthorizationRequest" a
        WHERE a."interactionHash" = $1 AND a."transactionId" = $2
          AND a."interactionUsedAt" IS NULL AND a."interactionExpiresAt" > $3::timestamp(3))
     UPDATE "AuthorizationRequest" a
        SET "interactionUsedAt" = $3::timestamp(3), "interactionDecision" = $4, "interactionResultHash" = $5
      WHERE a."id" = (SELECT "id" FROM pending) AND a."interactionUsedAt" IS NULL
      RETURNING (SELECT "offerPending" FROM pending) AS "offerPending"`,
    [interactionHash, transaction.id, new Date(), decision, back.tokenHash],
  );
  const completed = rows[0];
  if (!completed) throw await whyNotCompleted(sql, interactionHash, transaction.id);
  return { redirectTo: back.url, approved: decision === "approved" && completed.offerPending };
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
