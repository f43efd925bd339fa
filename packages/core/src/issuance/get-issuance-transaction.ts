import type { TIssuanceTransaction } from "@cred/contracts/issuance";
import { Prisma, type UnitOfWork } from "@cred/db";
import type { AppDeps } from "../shared/context";
import { DomainError, notFound } from "../shared/errors";
import { emitEvent } from "../shared/outbox";
import type { Principal } from "../shared/principal";
import { scopeOfRow } from "../shared/scope-of";
import { effectiveStatus, toIssuanceTransactionDto } from "./issuance-transaction-dto";
import { createdOffers } from "./wallet/created-offers";

export async function findVisibleTransaction(db: UnitOfWork, principal: Principal, id: string) {
  const row = await db.prisma.issuanceTransaction.findFirst({
    where: {
      id,
      tenantId: principal.tenantId,
      environment: principal.environment,
      ...(principal.issuerId ? { issuerId: principal.issuerId } : {}),
    },
  });
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
    const now = new Date();
    // Conditional update: a wallet redeeming the offer at the same moment wins or loses atomically.
    const { count } = await tx.prisma.issuanceTransaction.updateMany({
      where: { id, status: "pending", expiresAt: { gt: now } },
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
    if (count === 0) throw new DomainError("InvalidState", "The issuance transaction is no longer pending.");
    createdOffers.forget(id);
    await tx.prisma.accessToken.deleteMany({ where: { transactionId: id } });
    await emitEvent(tx, scopeOfRow(row), "issuance.transaction.cancelled", {
      transactionId: id,
      issuerId: row.issuerId,
      credentialConfiguration: row.configurationIdentifier,
      status: "cancelled",
      callbackReference: row.callbackReference,
      externalSubjectReference: row.externalSubjectReference,
    });
    return tx.prisma.issuanceTransaction.findUniqueOrThrow({ where: { id } });
  });
  return toIssuanceTransactionDto(deps, updated);
}
