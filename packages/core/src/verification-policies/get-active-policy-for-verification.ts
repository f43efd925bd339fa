import type { TPolicyRules } from "@cred/contracts/verification-policies";
import type { UnitOfWork } from "@cred/db";
import { cacheSpec } from "../shared/caches";
import type { AppDeps } from "../shared/context";
import { DomainError } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import { rulesOf } from "./verification-policy-dto";
import { type VerificationPolicyRow, verificationPolicyRepository } from "./verification-policy-repository";

export interface ActivePolicy {
  row: VerificationPolicyRow;
  /** Shared between sessions whose policy has the same rules: read, never change. */
  rules: TPolicyRules;
}

/**
 * Validated rules by their stored text: every session would otherwise re-validate the same rules (~60 µs).
 * Keyed by the text itself, not a version stamp, so a change can never be served stale.
 */
const validatedRules = cacheSpec<TPolicyRules>("verification-policies.validatedRules", { max: 256 });

function validatedRulesOf(deps: Pick<AppDeps, "caches">, row: VerificationPolicyRow): TPolicyRules {
  const cache = deps.caches.of(validatedRules);
  const text = JSON.stringify(row.rules);
  let rules = cache.peek(text);
  if (!rules) {
    rules = rulesOf(row);
    cache.set(text, rules);
  }
  return rules;
}

/**
 * The policy a new verification runs under: unknown → `UnknownPolicy` (400), suspended →
 * `PolicySuspended` (409). Pass the verification's unit of work (its transaction, if any) to read consistently.
 */
export async function getActivePolicyForVerification(
  deps: Pick<AppDeps, "caches">,
  db: UnitOfWork,
  scope: TenantScope,
  identifier: string,
): Promise<ActivePolicy> {
  const row = await verificationPolicyRepository.findByIdentifierSql(db, scope, identifier);
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
  return { row, rules: validatedRulesOf(deps, row) };
}
