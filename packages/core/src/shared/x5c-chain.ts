import { createHash, X509Certificate } from "node:crypto";
import { importEs256PublicKey, validateCertificatePath } from "@cred/oid4vc";
import type { CryptoKey, JWK } from "jose";
import { type Caches, cacheSpec } from "./caches";

export interface X5cChainKey {
  /** The leaf's P-256 public key. */
  key: CryptoKey;
  leaf: X509Certificate;
  /** When the first certificate of the chain, root included, expires (epoch ms). */
  notAfter: number;
}

/** Valid chains' leaf keys by root and chain, for 5 minutes (still refused once expired). */
export const X5C_CHAINS = cacheSpec<X5cChainKey | null>("shared.x5cChains", { max: 1000, ttlMs: 5 * 60_000 });
/** Pinned roots, PEM → DER. */
export const X5C_ROOTS = cacheSpec<Buffer>("shared.x5cRoots", { max: 1000 });

function rootDer(caches: Caches, pem: string): Buffer {
  const roots = caches.of(X5C_ROOTS);
  let der = roots.peek(pem);
  if (!der) {
    der = new X509Certificate(pem).raw;
    roots.set(pem, der);
  }
  return der;
}

function publicOnly({ kty, crv, x, y }: JWK): JWK {
  return { kty, crv, x, y };
}

/**
 * The leaf key of an `x5c` chain (base64 DER, leaf first, at most 5) that ends at the pinned root, by
 * RFC 5280 path validation (`validateCertificatePath` in `@cred/oid4vc`, on pkijs): every certificate
 * valid at `now` and issued (and signed) by the next, the root after the last; the certificates above
 * the leaf CAs allowed to sign certificates (cA, keyCertSign, pathLenConstraint), name constraints
 * kept, no unknown critical extension; the leaf not a CA, usable for signatures, its key P-256. The
 * chain may end with the root itself, but the root alone certifies nothing. Null when any of that
 * fails. A valid chain is cached for 5 minutes by root and chain (and still refused once it has expired).
 */
export async function x5cChainKey(
  caches: Caches,
  x5c: readonly string[],
  rootPem: string,
  now: number,
): Promise<X5cChainKey | null> {
  const cacheKey = createHash("sha256")
    .update(`${rootPem}|${x5c.join(",")}`)
    .digest("base64url");
  const value = await caches.of(X5C_CHAINS).get(cacheKey, () => validate(caches, x5c, rootPem, now));
  return value && value.notAfter >= now ? value : null;
}

async function validate(
  caches: Caches,
  x5c: readonly string[],
  rootPem: string,
  now: number,
): Promise<X5cChainKey | null> {
  let trustAnchor: Buffer;
  try {
    trustAnchor = rootDer(caches, rootPem);
  } catch {
    return null;
  }
  const result = await validateCertificatePath({
    chain: x5c.map((der) => Buffer.from(der, "base64")),
    trustAnchor,
    at: new Date(now),
  });
  if (!result.valid) return null;
  let leaf: X509Certificate;
  let jwk: JWK;
  try {
    leaf = new X509Certificate(result.path[0]!);
    jwk = leaf.publicKey.export({ format: "jwk" }) as JWK;
  } catch {
    return null;
  }
  if (jwk.kty !== "EC" || jwk.crv !== "P-256") return null;
  return {
    key: await importEs256PublicKey(publicOnly(jwk)),
    leaf,
    notAfter: result.notAfter.getTime(),
  };
}

/**
 * The signing key of a JWS whose `x5c` header chains to one of `roots` (see `x5cChainKey`), or null:
 * how attestations by wallet providers and key attesters are trusted.
 */
export async function keyUnderTrustedRoots(
  caches: Caches,
  header: { x5c?: unknown },
  roots: readonly string[],
  now: number,
): Promise<CryptoKey | null> {
  return (await chainUnderTrustedRoots(caches, header, roots, now))?.key ?? null;
}

/** As `keyUnderTrustedRoots`, with the root the chain ends at (what else the signer says is held to). */
export async function chainUnderTrustedRoots(
  caches: Caches,
  header: { x5c?: unknown },
  roots: readonly string[],
  now: number,
): Promise<{ key: CryptoKey; root: string } | null> {
  const x5c = header.x5c;
  if (!Array.isArray(x5c) || x5c.length === 0 || !x5c.every((der) => typeof der === "string")) return null;
  for (const root of roots) {
    const chain = await x5cChainKey(caches, x5c, root, now);
    if (chain) return { key: chain.key, root };
  }
  return null;
}

/**
 * Stored attestation trust settings (an issuer's `walletAttestation` or `keyAttestation` column) when
 * they name at least one trusted root; null when the issuer trusts no attester of that kind.
 */
export function trustSettingsOf<T extends { trustedRoots: string[] }>(stored: unknown): T | null {
  const settings = stored as T | null;
  return settings && Array.isArray(settings.trustedRoots) && settings.trustedRoots.length > 0
    ? settings
    : null;
}
