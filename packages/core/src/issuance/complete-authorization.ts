import type { TCompleteAuthorizationRequest } from "@cred/contracts/issuance";
import type { FastSql, UnitOfWork } from "@cred/db";
import type { AppDeps } from "../shared/context";
import { DomainError, notFound } from "../shared/errors";
import type { Principal } from "../shared/principal";
import { hashSecret } from "../shared/secret-box";
import { findVisibleTransaction } from "./get-issuance-transaction";
import { authorizationReturn, isRedeemableOffer, offerRedeemableSql } from "./wallet/authorization-page";

interface Interaction {
  id: string;
  issuerId: string;
  transactionId: string | null;
  configurationIdentifier: string | null;
  interactionUsedAt: Date | null;
  interactionExpiresAt: Date | null;
}

/**
 * Authorizations_Complete: the integrator's answer for a person sent to the issuer's authorization
 * page. The interaction handle is spent (once, within its 10 minutes) and the decision recorded, in one
 * statement; a wallet-initiated request is bound, when approved, to the transaction the integrator
 * names (its subject and claims). Returns the URL to send the person's browser to: our return endpoint
 * with a one-time result token, which gives the wallet its code (or `access_denied`) only in the browser
 * that opened the authorization endpoint, so that a page link someone forwarded to the person gains them
 * nothing. 404 for a handle or transaction the caller cannot see; 409 for a handle already completed or
 * expired, or a transaction that cannot answer this request; 400 for an approval of a wallet-initiated
 * request without a transaction. An approval runs under the transaction's row lock, so that of two
 * approvals for one transaction at the same moment the second sees the first.
 */
export function completeAuthorization(
  deps: Pick<AppDeps, "config" | "database">,
  db: UnitOfWork,
  principal: Principal,
  input: TCompleteAuthorizationRequest,
) {
  return db.transaction((tx) => complete(deps, tx, principal, input));
}

async function complete(
  deps: Pick<AppDeps, "config" | "database">,
  db: UnitOfWork,
  principal: Principal,
  input: TCompleteAuthorizationRequest,
) {
  const sql = db.sql;
  const interactionHash = hashSecret(input.interaction);
  const interaction = await visibleInteraction(sql, principal, interactionHash);
  if (interaction.interactionUsedAt) {
    throw new DomainError("InvalidState", "This authorization interaction was already completed.");
  }
  const approve = input.decision === "approve";
  // The offer's own transaction is locked before it is checked, so that a concurrent approval's binding
  // or redemption is seen; one the caller names is locked only once it is known to be the caller's to see.
  const lock = (id: string) =>
    sql.query(`SELECT 1 FROM "IssuanceTransaction" WHERE "id" = $1 FOR UPDATE`, [id]);
  if (approve && interaction.transactionId) await lock(interaction.transactionId);
  const transactionId = await answeringTransaction(db, principal, interaction, input, approve);
  if (approve && transactionId && !interaction.transactionId) await lock(transactionId);
  const now = new Date();
  if (approve && transactionId && (await approvedElsewhere(sql, transactionId, interaction.id, now))) {
    throw new DomainError(
      "InvalidState",
      "Another authorization request for this issuance transaction is approved and not yet redeemed; one transaction answers one wallet.",
    );
  }
  const back = authorizationReturn(deps.config, interaction.issuerId);
  const binds = approve && interaction.transactionId === null && transactionId !== null;
  // Binding a wallet-initiated request also closes the transaction's own offer to the code flow (its
  // issuer_state), so that only the wallet the integrator approved can redeem it.
  const { rows } = await sql.query<{ offerPending: boolean }>(
    `WITH pending AS (
       SELECT a."id", ${offerRedeemableSql("$2", "$3")} AS "offerPending"
         FROM "AuthorizationRequest" a
        WHERE a."id" = $1 AND a."interactionUsedAt" IS NULL AND a."interactionExpiresAt" > $3::timestamp(3)),
     bound AS (
       UPDATE "IssuanceTransaction" SET "issuerStateHash" = NULL, "updatedAt" = $3::timestamp(3)
        WHERE "id" = $2 AND $6::boolean AND EXISTS (SELECT 1 FROM pending))
     UPDATE "AuthorizationRequest" a
        SET "interactionUsedAt" = $3::timestamp(3), "interactionDecision" = $4, "interactionResultHash" = $5,
            "transactionId" = COALESCE(a."transactionId", $2)
      WHERE a."id" = (SELECT "id" FROM pending) AND a."interactionUsedAt" IS NULL
      RETURNING (SELECT "offerPending" FROM pending) AS "offerPending"`,
    [interaction.id, transactionId, now, approve ? "approved" : "denied", back.tokenHash, binds],
  );
  const completed = rows[0];
  if (!completed) {
    throw new DomainError(
      "InvalidState",
      "This authorization interaction has expired or was just completed: the person starts again from the wallet.",
    );
  }
  return { redirectTo: back.url, approved: approve && completed.offerPending };
}

/**
 * Whether another request for the transaction holds an approval still to be taken back, or a code not
 * yet used: a second approval would hand a second wallet a code for the same credential.
 */
async function approvedElsewhere(sql: FastSql, transactionId: string, requestId: string, now: Date) {
  const { rows } = await sql.query(
    `SELECT 1 FROM "AuthorizationRequest"
      WHERE "transactionId" = $1 AND "id" <> $2
        AND (("interactionDecision" = 'approved' AND "interactionReturnedAt" IS NULL
              AND "interactionExpiresAt" > $3::timestamp(3))
          OR ("codeHash" IS NOT NULL AND "codeUsedAt" IS NULL AND "codeExpiresAt" > $3::timestamp(3)))
      LIMIT 1`,
    [transactionId, requestId, now],
  );
  return rows.length > 0;
}

/** The request behind a handle, if its issuer is the caller's to see (tenant, environment, issuer key). */
async function visibleInteraction(sql: FastSql, principal: Principal, interactionHash: string) {
  const { rows } = await sql.query<Interaction>(
    `SELECT a."id", a."issuerId", a."transactionId", a."configurationIdentifier", a."interactionUsedAt",
            a."interactionExpiresAt"
       FROM "AuthorizationRequest" a JOIN "Issuer" i ON i."id" = a."issuerId"
      WHERE a."interactionHash" = $1 AND i."tenantId" = $2 AND i."environment" = $3
        AND ($4::text IS NULL OR i."id" = $4)`,
    [interactionHash, principal.tenantId, principal.environment, principal.issuerId ?? null],
  );
  const interaction = rows[0];
  if (!interaction) throw notFound("The authorization interaction");
  return interaction;
}

/**
 * The transaction that answers the request: the offer's own (a `transactionId` sent must be it), or,
 * for a wallet-initiated request, the one named, which must be the caller's to see, of the same issuer
 * and configuration, pending, unredeemed and made for the authorization code grant. A denial of a
 * wallet-initiated request needs none (null).
 */
async function answeringTransaction(
  db: UnitOfWork,
  principal: Principal,
  interaction: Interaction,
  input: TCompleteAuthorizationRequest,
  approve: boolean,
): Promise<string | null> {
  if (interaction.transactionId) {
    if (input.transactionId !== undefined && input.transactionId !== interaction.transactionId) {
      throw new DomainError(
        "InvalidState",
        "This authorization interaction belongs to the offer of another issuance transaction.",
      );
    }
    return interaction.transactionId;
  }
  if (input.transactionId === undefined) {
    if (!approve) return null;
    throw new DomainError(
      "ValidationFailed",
      "This request came from the wallet, not from an offer: name the issuance transaction (transactionId) that holds the person's claims.",
    );
  }
  const transaction = await findVisibleTransaction(db, principal, input.transactionId);
  if (
    transaction.issuerId !== interaction.issuerId ||
    transaction.configurationIdentifier !== interaction.configurationIdentifier ||
    transaction.issuerStateHash === null ||
    !isRedeemableOffer(transaction)
  ) {
    throw new DomainError(
      "InvalidState",
      `The issuance transaction must be a pending one of the same issuer for ${interaction.configurationIdentifier}, created with delivery.grant "authorizationCode" and not yet redeemed.`,
    );
  }
  return transaction.id;
}
