import type { TVerificationPolicy } from "@cred/contracts/verification-policies";
import type { UnitOfWork } from "@cred/db";
import { DomainError, notFound } from "../shared/errors";
import { emitEvent } from "../shared/outbox";
import type { TenantScope } from "../shared/principal";
import { loadVerificationPolicyDto } from "./verification-policy-dto";
import { verificationPolicyRepository as repo } from "./verification-policy-repository";

type Status = TVerificationPolicy["status"];

const EVENT: Record<Status, string> = {
  suspended: "verification_policy.suspended",
  active: "verification_policy.reactivated",
};

/** One transaction: the state change and its outbox event, or neither. */
async function changeStatus(
  db: UnitOfWork,
  scope: TenantScope,
  identifier: string,
  from: Status,
  to: Status,
) {
  return db.transaction(async (tx) => {
    if (!(await repo.transition(tx, scope, identifier, from, to))) {
      const existing = await repo.findByIdentifier(tx, scope, identifier);
      if (!existing) throw notFound("The verification policy");
      throw new DomainError(
        "InvalidState",
        to === "suspended"
          ? "The verification policy is already suspended."
          : "The verification policy is already active.",
        [{ code: "InvalidState", target: "status", message: `The policy is ${existing.status}.` }],
      );
    }
    const row = await repo.findByIdentifier(tx, scope, identifier);
    const policy = await loadVerificationPolicyDto(tx, row!);
    await emitEvent(tx, scope, EVENT[to], {
      identifier: policy.identifier,
      displayName: policy.displayName,
      status: policy.status,
    });
    return policy;
  });
}

/** active → suspended; new verifications under the policy are refused until it is reactivated. */
export function suspendVerificationPolicy(db: UnitOfWork, scope: TenantScope, identifier: string) {
  return changeStatus(db, scope, identifier, "active", "suspended");
}

/** suspended → active. */
export function reactivateVerificationPolicy(db: UnitOfWork, scope: TenantScope, identifier: string) {
  return changeStatus(db, scope, identifier, "suspended", "active");
}
