import { x509 } from "../x509/peculiar-x509";
import type { DcqlTrustedAuthority } from "./z-dcql";

const MAX_CACHED = 1024;
const akiCache = new Map<string, string | null>();

/**
 * The AuthorityKeyIdentifier `keyIdentifier` of a certificate (standard base64 DER, e.g. an `x5c` entry)
 * as base64url, or null when absent. Results are cached (issuer chains repeat across presentations).
 */
export function certificateAki(certificateDerB64: string): string | null {
  const cached = akiCache.get(certificateDerB64);
  if (cached !== undefined) return cached;
  let aki: string | null = null;
  try {
    const cert = new x509.X509Certificate(Buffer.from(certificateDerB64, "base64"));
    const ext = cert.getExtension(x509.AuthorityKeyIdentifierExtension);
    if (ext?.keyId) aki = Buffer.from(ext.keyId, "hex").toString("base64url");
  } catch {
    aki = null;
  }
  if (akiCache.size >= MAX_CACHED) {
    const oldest = akiCache.keys().next();
    if (!oldest.done) akiCache.delete(oldest.value);
  }
  akiCache.set(certificateDerB64, aki);
  return aki;
}

/**
 * DCQL `trusted_authorities` matching (OpenID4VP §6.1.1) for a credential's `x5c` chain: true when one
 * `aki` value equals the AuthorityKeyIdentifier of a certificate in the chain. Types other than `aki`
 * (`etsi_tl`, `openid_federation`) are not evaluated here and never match. No `trusted_authorities`
 * means no constraint (true). This helps data minimisation only: issuer trust is decided separately.
 */
export function matchesTrustedAuthorities(
  x5c: readonly string[] | undefined,
  trustedAuthorities: readonly DcqlTrustedAuthority[] | undefined,
): boolean {
  if (!trustedAuthorities || trustedAuthorities.length === 0) return true;
  if (!x5c || x5c.length === 0) return false;
  const akis = new Set<string>();
  for (const cert of x5c) {
    const aki = certificateAki(cert);
    if (aki) akis.add(aki);
  }
  return trustedAuthorities.some((ta) => ta.type === "aki" && ta.values.some((v) => akis.has(v)));
}
