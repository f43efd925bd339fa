import type { ListQuery } from "@cred/contracts/pagination";
import type { TVerificationPolicy } from "@cred/contracts/verification-policies";
import type { UnitOfWork } from "@cred/db";
import { decodeCursor, toPage } from "../shared/pagination";
import type { TenantScope } from "../shared/principal";
import { verificationPolicyRepository } from "./verification-policy-repository";

/** Lists identifiers, display names and status only: the rules are never part of a list. */
export async function listVerificationPolicies(db: UnitOfWork, scope: TenantScope, query: ListQuery) {
  const rows = await verificationPolicyRepository.list(db, scope, {
    afterId: decodeCursor(query.cursor),
    take: query.limit + 1,
  });
  return toPage(rows, query.limit, (row) => ({
    identifier: row.identifier,
    displayName: row.displayName,
    status: row.status as TVerificationPolicy["status"],
  }));
}
