import { type TVerificationPolicy, zPolicyRules } from "@cred/contracts/verification-policies";
import type { UnitOfWork } from "@cred/db";
import {
  type VerificationPolicyRow,
  type VerificationPolicyVersionRow,
  verificationPolicyRepository,
} from "./verification-policy-repository";

/** The rules column, parsed (defaults applied, invariants checked). */
export function rulesOf(row: Pick<VerificationPolicyRow, "rules">): ReturnType<typeof zPolicyRules.parse> {
  return zPolicyRules.parse(row.rules);
}

type VersionStatus = TVerificationPolicy["versions"][number]["status"];

export function toVerificationPolicyVersionDto(version: VerificationPolicyVersionRow) {
  return {
    version: version.version,
    status: version.status as VersionStatus,
    reason: version.reason,
    createdAt: version.createdAt.toISOString(),
    activatedAt: version.activatedAt?.toISOString() ?? null,
  };
}

export function toVerificationPolicyDto(
  row: VerificationPolicyRow,
  versions: VerificationPolicyVersionRow[],
): TVerificationPolicy {
  return {
    identifier: row.identifier,
    displayName: row.displayName,
    purpose: row.purpose,
    status: row.status as TVerificationPolicy["status"],
    rules: rulesOf(row),
    activeVersion: row.activeVersion,
    versions: versions.map(toVerificationPolicyVersionDto),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The policy as answered, with its versions read in the same unit of work. */
export async function loadVerificationPolicyDto(
  db: UnitOfWork,
  row: VerificationPolicyRow,
): Promise<TVerificationPolicy> {
  return toVerificationPolicyDto(row, await verificationPolicyRepository.versionsOf(db, row.id));
}
