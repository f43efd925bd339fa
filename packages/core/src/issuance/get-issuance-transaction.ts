import type { TIssuanceTransaction } from "@cred/contracts/issuance";
import type { UnitOfWork } from "@cred/db";
import type { AppDeps } from "../shared/context";
import { DomainError, notFound } from "../shared/errors";
import { emitEvent } from "../shared/outbox";
import type { Principal } from "../shared/principal";
import { scopeOf, scopeOfRow } from "../shared/scope-of";
import { issuanceRepository } from "./issuance-repository";
import { effectiveStatus, toIssuanceTransactionDto } from "./issuance-transaction-dto";

export async function findVisibleTransaction(db: UnitOfWork, principal: Principal, id: string) {
  const row = await issuanceRepository.findVisible(db, scopeOf({ principal }), principal.issuerId, id);
  if (!row) throw notFound("The issuance transaction");
  return row;
}

/**
 * The transaction as the caller may see it: a caller without `credentials.issue` (a read-only key, a
 * console viewer) gets the offer link and URI as null, since whoever holds them can claim the credential.
 */
export async function getIssuanceTransaction(
  deps: AppDeps,
  db: UnitOfWork,
  principal: Principal,
  id: string,
) {
  const row = await findVisibleTransaction(db, principal, id);
  return toIssuanceTransactionDto(deps, row, null, principal.scopes.has("credentials.issue"));
}

/** pending → cancelled (200); completed, cancelled or expired → 409 InvalidState (spec §3.2). */
export async function cancelIssuanceTransaction(
  deps: AppDeps,
  db: UnitOfWork,
  principal: Principal,
  id: string,
): Promise<TIssuanceTransaction> {
  const row = await findVisibleTransaction(db, principal, id);
  const status = effectiveStatus(row);
  if (status !== "pending") {
    throw new DomainError(
      "InvalidState",
      `The issuance transaction is ${status}; only a pending one can be cancelled.`,
    );
  }
  const updated = await db.transaction(async (tx) => {
    const scope = scopeOfRow(row);
    if (!(await issuanceRepository.cancelPending(tx, deps.caches, scope, id, new Date())))
      throw new DomainError("InvalidState", "The issuance transaction is no longer pending.");
    await emitEvent(tx, scope, "issuance.transaction.cancelled", {
      transactionId: id,
      issuerId: row.issuerId,
      credentialConfiguration: row.configurationIdentifier,
      status: "cancelled",
      callbackReference: row.callbackReference,
      externalSubjectReference: row.externalSubjectReference,
    });
    return issuanceRepository.findInScopeOrThrow(tx, scope, id);
  });
  return toIssuanceTransactionDto(deps, updated);
}
