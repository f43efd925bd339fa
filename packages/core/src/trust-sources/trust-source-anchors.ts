import type { UnitOfWork } from "@cred/db";
import type { AppDeps } from "../shared/context";
import type { TenantScope } from "../shared/principal";
import { anchorCertificatesOf } from "./stored-lists";
import { storedListsOf } from "./trust-source-dto";
import { trustSourceRepository as repo } from "./trust-source-repository";

/**
 * The PEM certificates of services of `serviceType` in effect at `now` in a live trust source of this
 * tenant + environment (its last good copy, while its NextUpdate has not passed); none for an unknown,
 * foreign or deleted source. Read from the database each time, so a refresh or delete counts at once.
 */
export function trustSourceAnchors(
  deps: Pick<AppDeps, "database">,
  scope: TenantScope,
  trustSourceId: string,
  serviceType: string,
  now: number,
): Promise<string[]> {
  return trustSourceAnchorsIn(deps.database.root, scope, trustSourceId, serviceType, now);
}

/** `trustSourceAnchors` read through a given unit of work. */
export async function trustSourceAnchorsIn(
  db: UnitOfWork,
  scope: TenantScope,
  trustSourceId: string,
  serviceType: string,
  now: number,
): Promise<string[]> {
  const row = await repo.findById(db, scope, trustSourceId);
  return row ? anchorCertificatesOf(storedListsOf(row), serviceType, new Date(now)) : [];
}

/** A live trust source's kind and URL (for DCQL `etsi_tl`); null for an unknown, foreign or deleted one. */
export async function trustSourceListOf(
  deps: Pick<AppDeps, "database">,
  scope: TenantScope,
  trustSourceId: string,
): Promise<{ kind: string; url: string } | null> {
  const row = await repo.findById(deps.database.root, scope, trustSourceId);
  return row ? { kind: row.kind, url: row.url } : null;
}
