import type { UnitOfWork } from "@cred/db";
import { DomainError } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import { trustSourceRepository as repo } from "./trust-source-repository";

/**
 * Refuses settings naming a trust source that is not a live one of this tenant and environment (400
 * UnknownTrustSource, one detail per unknown id at `target`).
 */
export async function assertTrustSourcesExist(
  db: UnitOfWork,
  scope: TenantScope,
  named: readonly { trustSourceId: string; target: string }[],
): Promise<void> {
  if (named.length === 0) return;
  const known = await repo.existingIds(db, scope, [...new Set(named.map((n) => n.trustSourceId))]);
  const unknown = named.filter((n) => !known.has(n.trustSourceId));
  if (unknown.length === 0) return;
  throw new DomainError(
    "UnknownTrustSource",
    "A trust source named here does not exist in this environment.",
    unknown.map((n) => ({
      code: "UnknownTrustSource",
      target: n.target,
      message: `No trust source '${n.trustSourceId}' exists in this environment.`,
    })),
  );
}
