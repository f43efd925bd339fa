import type { FastSql } from "@cred/db";
import { DomainError } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import type { TPolicyRules } from "./verification-policy.schema";
import { rulesOf } from "./verification-policy-dto";
import { type VerificationPolicyRow, verificationPolicyRepository } from "./verification-policy-repository";

export interface ActivePolicy {
  row: VerificationPolicyRow;
  rules: TPolicyRules;
}

/**
 * The policy a new verification runs under: unknown → `UnknownPolicy` (400), suspended →
 * `PolicySuspended` (409). Pass the SQL path of the verification's transaction (`sqlFor`) to read consistently.
 */
export async function getActivePolicyForVerification(
  sql: FastSql,
  scope: TenantScope,
  identifier: string,
): Promise<ActivePolicy> {
  const row = await verificationPolicyRepository.findByIdentifierSql(sql, scope, identifier);
  if (!row) {
    throw new DomainError("UnknownPolicy", `No verification policy '${identifier}' exists.`, [
      { code: "UnknownPolicy", target: "policy", message: "Name the identifier of an existing policy." },
    ]);
  }
  if (row.status !== "active") {
    throw new DomainError("PolicySuspended", `The verification policy '${identifier}' is suspended.`, [
      { code: "PolicySuspended", target: "policy", message: "Reactivate the policy or name another one." },
    ]);
  }
  return { row, rules: rulesOf(row) };
}
