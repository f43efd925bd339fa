import type { TIssuanceTransaction, TSupplyClaimsRequest } from "@cred/contracts/issuance";
import type { UnitOfWork } from "@cred/db";
import { configurationCatalog } from "../credential-configurations";
import { claimPattern } from "../shared/claim-pattern";
import type { AppDeps } from "../shared/context";
import { DomainError } from "../shared/errors";
import type { Principal } from "../shared/principal";
import { scopeOf, scopeOfRow } from "../shared/scope-of";
import { findVisibleTransaction } from "./get-issuance-transaction";
import { issuanceRepository } from "./issuance-repository";
import { effectiveStatus, toIssuanceTransactionDto } from "./issuance-transaction-dto";
import { validateClaims } from "./validate-claims";

/**
 * IssuanceTransactions_SupplyClaims: the claims of a deferred transaction, checked against the
 * configuration version it was created with and sealed like any transaction's. From then on the wallet's
 * next request (credential or deferred credential endpoint) is issued. 409 for a transaction that is not
 * pending, not deferred, or already has its claims; the row is locked, so two suppliers queue.
 */
export async function supplyClaims(
  deps: AppDeps,
  db: UnitOfWork,
  principal: Principal,
  input: TSupplyClaimsRequest,
): Promise<TIssuanceTransaction> {
  return db.transaction(async (tx) => {
    await findVisibleTransaction(tx, principal, input.transactionId);
    await issuanceRepository.lockForUpdate(tx, scopeOf({ principal }), input.transactionId);
    const row = await findVisibleTransaction(tx, principal, input.transactionId);
    const status = effectiveStatus(row);
    if (status !== "pending") {
      throw new DomainError(
        "InvalidState",
        `The issuance transaction is ${status}; claims can no longer be supplied.`,
      );
    }
    if (!row.deferred) {
      throw new DomainError(
        "InvalidState",
        "The issuance transaction was created with its claims; only a deferred one (delivery.deferred) takes them later.",
      );
    }
    if (row.claimsCipher !== null) {
      throw new DomainError("InvalidState", "The claims of this issuance transaction were already supplied.");
    }
    const definitions =
      (await configurationCatalog.claims(tx, deps.caches, row.configurationId, row.configurationVersion)) ??
      [];
    validateClaims(definitions, input.claims, (pattern) => claimPattern(deps.caches, pattern));
    const now = new Date();
    const updated = await issuanceRepository.supplyClaims(
      tx,
      scopeOfRow(row),
      row.id,
      deps.secretBox.seal(JSON.stringify(input.claims), row.id),
      now,
    );
    return toIssuanceTransactionDto(deps, updated, null, principal.scopes.has("credentials.issue"));
  });
}
