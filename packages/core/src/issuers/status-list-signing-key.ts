import type { TStatusListSigningSettings } from "@cred/contracts/issuers";
import type { UnitOfWork } from "@cred/db";
import type { Caches } from "../shared/caches";
import type { TenantScope } from "../shared/principal";
import { destroyAfterCommit, generateIssuerSigningKey, type KeyCustodyDeps } from "./issuer-key-custody";
import { issuerKeyRepository, type NewIssuerKey } from "./issuer-key-repository";
import { statusListSigningKeyOf, type WithIssuerKeys } from "./issuer-keys";
import { issuerRepository } from "./issuer-repository";

/**
 * A separate status list signing key (as swiyu separates it), under the issuer's row lock:
 * `separateKey: true` makes one in the issuer's key custody when there is none (through `mint`, so that
 * a key the transaction does not store is destroyed again); `false` drops it, its HSM key destroyed
 * once committed, and the credential signing key signs status lists again. Either way the issuer's
 * status lists get a new version, so that every process signs their tokens afresh with the key now in
 * charge. True when something changed.
 */
export async function applyStatusListSigningSettings(
  tx: UnitOfWork,
  deps: KeyCustodyDeps & { caches: Caches },
  issuer: TenantScope & { issuerId: string; keyProvider: string },
  current: WithIssuerKeys | null,
  settings: TStatusListSigningSettings,
  mint: (make: () => Promise<NewIssuerKey>) => Promise<NewIssuerKey>,
  now = new Date(),
): Promise<boolean> {
  const existing = current ? statusListSigningKeyOf(current) : null;
  if (settings.separateKey === (existing !== null)) return false;
  const scope = { tenantId: issuer.tenantId, environment: issuer.environment };
  // Provisioned after this at creation: nothing to bump there.
  if (current) await issuerRepository.bumpStatusListVersions(tx, issuer.issuerId);
  if (!settings.separateKey) {
    destroyAfterCommit(tx, deps, [existing!]);
    await issuerKeyRepository.deleteInStates(tx, deps.caches, scope, issuer.issuerId, "status_list_signing", [
      "current",
    ]);
    return true;
  }
  const key = await mint(() =>
    generateIssuerSigningKey(
      deps,
      { id: issuer.issuerId, keyProvider: issuer.keyProvider },
      "status_list_signing",
    ),
  );
  await issuerKeyRepository.create(tx, deps.caches, issuer, "status_list_signing", "current", key, now);
  return true;
}
