import type { TStatusListSigningSettings } from "@cred/contracts/issuers";
import type { UnitOfWork } from "@cred/db";
import type { Caches } from "../shared/caches";
import type { CoreConfig } from "../shared/context";
import type { TenantScope } from "../shared/principal";
import { destroyAfterCommit, generateIssuerSigningKey, type KeyCustodyDeps } from "./issuer-key-custody";
import { issuerKeyRepository, type NewIssuerKey } from "./issuer-key-repository";
import { statusListSigningKeyOf, type WithIssuerKeys } from "./issuer-keys";
import { issuerRepository } from "./issuer-repository";

/**
 * A separate status list signing key (as swiyu separates it), under the issuer's row lock:
 * `separateKey: true` makes one in the issuer's key custody for status list signing when there is none (through `mint`, so that
 * a key the transaction does not store is destroyed again); `false` retires it (its private part,
 * an HSM key, destroyed once committed; its public key published until the tokens it signed have
 * expired), and the credential signing key signs status lists again. Either way the issuer's
 * status lists get a new version, so that every process signs their tokens afresh with the key now in
 * charge. True when something changed.
 */
export async function applyStatusListSigningSettings(
  tx: UnitOfWork,
  deps: KeyCustodyDeps & {
    caches: Caches;
    config: { issuance: Pick<CoreConfig["issuance"], "statusListTtlSeconds"> };
  },
  issuer: TenantScope & { issuerId: string; keyProvider: string; keyCustodyPurposes: unknown },
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
    // Its private part signs nothing from now on (destroyed once committed), but tokens it signed may
    // still be held by relying parties until they expire (exp ≤ iat + 2 × the status list ttl): its
    // public key stays published in the JWKS until then (`acceptedUntil`), and the sweeper removes it.
    destroyAfterCommit(tx, deps, [existing!]);
    await issuerKeyRepository.retireStatusListSigningKey(
      tx,
      deps.caches,
      scope,
      issuer.issuerId,
      new Date(now.getTime() + 2 * deps.config.issuance.statusListTtlSeconds * 1000),
      now,
    );
    return true;
  }
  const key = await mint(() =>
    generateIssuerSigningKey(
      deps,
      { id: issuer.issuerId, keyProvider: issuer.keyProvider, keyCustodyPurposes: issuer.keyCustodyPurposes },
      "status_list_signing",
    ),
  );
  await issuerKeyRepository.create(tx, deps.caches, issuer, "status_list_signing", "current", key, now);
  return true;
}
