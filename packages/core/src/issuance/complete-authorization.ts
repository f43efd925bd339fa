import type { TCompleteAuthorizationRequest } from "@cred/contracts/issuance";
import type { UnitOfWork } from "@cred/db";
import { authorizationReturn, isRedeemableOffer } from "../authorization-server";
import type { AppDeps } from "../shared/context";
import { DomainError, notFound } from "../shared/errors";
import type { Principal } from "../shared/principal";
import { scopeOf } from "../shared/scope-of";
import { hashSecret } from "../shared/secret-box";
import { authorizationInteractionRepository, type Interaction } from "./authorization-interaction-repository";
import { findVisibleTransaction } from "./get-issuance-transaction";
import { issuanceRepository } from "./issuance-repository";

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
  const scope = scopeOf({ principal });
  const interaction = await authorizationInteractionRepository.findVisible(
    db,
    scope,
    principal.issuerId,
    hashSecret(input.interaction),
  );
  if (!interaction) throw notFound("The authorization interaction");
  if (interaction.interactionUsedAt) {
    throw new DomainError("InvalidState", "This authorization interaction was already completed.");
  }
  const approve = input.decision === "approve";
  // The offer's own transaction is locked before it is checked, so that a concurrent approval's binding
  // or redemption is seen; one the caller names is locked only once it is known to be the caller's to see.
  const lock = (id: string) => issuanceRepository.lockForUpdate(db, scope, id);
  if (approve && interaction.transactionId) await lock(interaction.transactionId);
  const transactionId = await answeringTransaction(db, principal, interaction, input, approve);
  if (approve && transactionId && !interaction.transactionId) await lock(transactionId);
  const now = new Date();
  if (
    approve &&
    transactionId &&
    (await authorizationInteractionRepository.approvedElsewhere(db, transactionId, interaction.id, now))
  ) {
    throw new DomainError(
      "InvalidState",
      "Another authorization request for this issuance transaction is approved and not yet redeemed; one transaction answers one wallet.",
    );
  }
  const back = authorizationReturn(deps.config, interaction.issuerId);
  // Binding a wallet-initiated request also closes the transaction's own offer to the code flow (its
  // issuer_state), so that only the wallet the integrator approved can redeem it.
  const completed = await authorizationInteractionRepository.complete(db, {
    requestId: interaction.id,
    transactionId,
    now,
    decision: approve ? "approved" : "denied",
    resultHash: back.tokenHash,
    bind: approve && interaction.transactionId === null && transactionId !== null,
  });
  if (!completed) {
    throw new DomainError(
      "InvalidState",
      "This authorization interaction has expired or was just completed: the person starts again from the wallet.",
    );
  }
  return { redirectTo: back.url, approved: approve && completed.offerPending };
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
