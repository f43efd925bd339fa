import type { TClaimDefinition } from "@cred/contracts/credential-configurations";
import type { UnitOfWork } from "@cred/db";
import type { Caches } from "../shared/caches";
import type { TenantScope } from "../shared/principal";
import {
  configurationCacheKey,
  configurationsByIdCache,
  configurationsCache,
  grantsCache,
  versionClaimsCache,
} from "./configuration-caches";
import { credentialConfigurationRepository as repo } from "./credential-configuration-repository";

/** Configurations, their versions' claims and grants as the hot path reads them (`configuration-caches.ts`). */

export const configurationCatalog = {
  configuration(db: UnitOfWork, caches: Caches, scope: TenantScope, identifier: string) {
    return caches
      .of(configurationsCache)
      .get(configurationCacheKey(scope, identifier), () => repo.findByIdentifier(db, scope, identifier));
  },
  configurationById(db: UnitOfWork, caches: Caches, id: string) {
    return caches.of(configurationsByIdCache).get(id, () => repo.findById(db, id));
  },
  claims(db: UnitOfWork, caches: Caches, configurationId: string, version: number) {
    return caches.of(versionClaimsCache).get(`${configurationId}|${version}`, async () => {
      const row = await repo.findVersion(db, configurationId, version);
      return row ? (row.claims as TClaimDefinition[]) : null;
    });
  },
  isGranted(db: UnitOfWork, caches: Caches, issuerId: string, configurationId: string) {
    return caches.of(grantsCache).get(
      `${issuerId}|${configurationId}`,
      () => repo.isGranted(db, issuerId, configurationId),
      (granted) => granted,
    );
  },
};
