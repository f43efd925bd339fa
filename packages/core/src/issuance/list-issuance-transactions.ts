import type { TListIssuanceTransactionsRequest } from "@cred/contracts/issuance";
import type { UnitOfWork } from "@cred/db";
import type { AppDeps } from "../shared/context";
import { createdAtRange, newestFirstIdWindow } from "../shared/newest-first";
import { toPage } from "../shared/pagination";
import type { Principal } from "../shared/principal";
import { scopeOf } from "../shared/scope-of";
import { issuanceRepository } from "./issuance-repository";
import { toIssuanceTransactionDto } from "./issuance-transaction-dto";

/**
 * IssuanceTransactions_List: the caller's partition, newest first. An issuer-bound key sees only its
 * issuer's transactions (as IssuanceTransactions_Get does); another issuer named in the filter reads as an
 * empty list. Items never carry the offer link, offer URI or transaction code, whatever the caller's
 * scopes: a list is for records, and the offer of a pending transaction is a bearer credential.
 */
export async function listIssuanceTransactions(
  deps: AppDeps,
  db: UnitOfWork,
  principal: Principal,
  input: TListIssuanceTransactionsRequest,
) {
  const ids = newestFirstIdWindow("itx", input);
  const boundIssuer = principal.issuerId;
  if (boundIssuer && input.issuerId !== undefined && input.issuerId !== boundIssuer) {
    return { data: [], nextCursor: null };
  }
  const now = new Date();
  const rows = await issuanceRepository.list(
    db,
    scopeOf({ principal }),
    {
      status: input.status,
      now,
      issuerId: boundIssuer ?? input.issuerId,
      configurationIdentifier: input.credentialConfiguration,
      externalSubjectReference: input.externalSubjectReference,
      callbackReference: input.callbackReference,
      createdAt: createdAtRange(input),
    },
    { ids, take: input.limit + 1 },
  );
  return toPage(rows, input.limit, (row) => toIssuanceTransactionDto(deps, row, null, false));
}
