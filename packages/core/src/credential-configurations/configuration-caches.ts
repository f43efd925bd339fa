import type { TClaimDefinition } from "@cred/contracts/credential-configurations";
import type { CredentialConfiguration } from "@cred/db";
import { cacheSpec } from "../shared/caches";
import type { TenantScope } from "../shared/principal";

type CredentialConfigurationRow = CredentialConfiguration;

/**
 * Configuration reference data on the issuance hot path, cached per process. Versions are immutable once
 * created and grants are only ever added: only final states are cached, and a miss is always read from
 * the database. A configuration's row changes (its active version), so it is kept for 2 s only (how
 * long another process may go on creating transactions on its previous version), and dropped at once in
 * the process that changes it (`credentialConfigurationRepository.activate`). Active issuer rows:
 * `activeIssuer` (issuers).
 */
export const configurationsCache = cacheSpec<CredentialConfigurationRow | null>(
  "credentialConfigurations.byIdentifier",
  { max: 10_000, ttlMs: 2_000 },
);
export const configurationsByIdCache = cacheSpec<CredentialConfigurationRow | null>(
  "credentialConfigurations.byId",
  { max: 10_000, ttlMs: 2_000 },
);
export const versionClaimsCache = cacheSpec<TClaimDefinition[] | null>(
  "credentialConfigurations.versionClaims",
  {
    max: 10_000,
  },
);
export const grantsCache = cacheSpec<boolean>("credentialConfigurations.grants", { max: 10_000 });

export const configurationCacheKey = (
  scope: Pick<TenantScope, "tenantId"> & { environment: string },
  identifier: string,
) => `${scope.tenantId}|${scope.environment}|${identifier}`;
