import {
  type TPolicyRules,
  type TVerificationPolicy,
  zPolicyRules,
} from "@cred/contracts/verification-policies";
import type { VerificationPolicyRow } from "./verification-policy-repository";

/** The rules column, parsed (defaults applied, invariants checked). */
export function rulesOf(row: Pick<VerificationPolicyRow, "rules">): TPolicyRules {
  return zPolicyRules.parse(row.rules);
}

export function toVerificationPolicyDto(row: VerificationPolicyRow): TVerificationPolicy {
  return {
    identifier: row.identifier,
    displayName: row.displayName,
    purpose: row.purpose,
    status: row.status as TVerificationPolicy["status"],
    rules: rulesOf(row),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
