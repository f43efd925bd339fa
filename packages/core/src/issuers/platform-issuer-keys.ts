import type { CryptoKey } from "jose";
import { type Caches, cacheSpec } from "../shared/caches";
import type { TenantScope } from "../shared/principal";

/**
 * The verifier's cache of platform issuers' public keys by partition and `kid` (filled and read by
 * verification/issuer-trust.ts), declared here so that a signing key rotation can drop its entries.
 * Found or not (null), a key is looked up again after 2 s: a key withdrawn by a rotation in another
 * process stops verifying within it (in the rotating process at once).
 */
export const platformIssuerKeysCache = cacheSpec<{ issuerId: string; key: CryptoKey } | null>(
  "issuers.platformIssuerKeys",
  { max: 1000, ttlMs: 2_000 },
);

export const platformIssuerKeyCacheKey = (scope: TenantScope, kid: string) =>
  `${scope.tenantId}|${scope.environment}|${kid}`;

/** After a signing key rotation: the keys it replaced and brought in are looked up afresh here. */
export function forgetPlatformIssuerKeys(caches: Caches, scope: TenantScope, kids: string[]): void {
  const cache = caches.of(platformIssuerKeysCache);
  for (const kid of kids) cache.delete(platformIssuerKeyCacheKey(scope, kid));
}
