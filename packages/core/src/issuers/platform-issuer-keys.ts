import type { CryptoKey } from "jose";

/**
 * The verifier's cache of platform issuers' public keys by `kid` (filled and read by
 * verification/issuer-trust.ts), kept here so a signing key rotation can clear it. Entries expire after
 * `PLATFORM_TTL_MS`; a null value caches "no such key".
 */
export const platformIssuerKeys = new Map<
  string,
  { value: { issuerId: string; key: CryptoKey } | null; expires: number }
>();

/** After a signing key rotation in this process: every platform key is looked up afresh. */
export function forgetPlatformIssuerKeys(): void {
  platformIssuerKeys.clear();
}
