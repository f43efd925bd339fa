import { createHash, X509Certificate } from "node:crypto";
import { importEs256PublicKey, validateCertificatePath } from "@cred/oid4vc";
import type { CryptoKey, JWK } from "jose";
import { BoundedMap } from "./bounded-map";

export interface X5cChainKey {
  /** The leaf's P-256 public key. */
  key: CryptoKey;
  leaf: X509Certificate;
  /** When the first certificate of the chain, root included, expires (epoch ms). */
  notAfter: number;
}

const TTL_MS = 5 * 60_000;
const MAX_ENTRIES = 1000;
const chains = new BoundedMap<string, { value: X5cChainKey; expires: number }>(MAX_ENTRIES);
/** Pinned roots, PEM → DER. */
const roots = new BoundedMap<string, Buffer>(MAX_ENTRIES);

function rootDer(pem: string): Buffer {
  let der = roots.get(pem);
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
  x5c: readonly string[],
  rootPem: string,
  now: number,
): Promise<X5cChainKey | null> {
  const cacheKey = createHash("sha256")
    .update(`${rootPem}|${x5c.join(",")}`)
    .digest("base64url");
  const cached = chains.get(cacheKey);
  if (cached && cached.expires > Date.now()) {
    return cached.value.notAfter >= now ? cached.value : null;
  }
  const value = await validate(x5c, rootPem, now);
  if (value) chains.set(cacheKey, { value, expires: Date.now() + TTL_MS });
  return value;
}

async function validate(x5c: readonly string[], rootPem: string, now: number): Promise<X5cChainKey | null> {
  let trustAnchor: Buffer;
  try {
    trustAnchor = rootDer(rootPem);
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
  header: { x5c?: unknown },
  roots: readonly string[],
  now: number,
): Promise<CryptoKey | null> {
  return (await chainUnderTrustedRoots(header, roots, now))?.key ?? null;
}

/** As `keyUnderTrustedRoots`, with the root the chain ends at (what else the signer says is held to). */
export async function chainUnderTrustedRoots(
  header: { x5c?: unknown },
  roots: readonly string[],
  now: number,
): Promise<{ key: CryptoKey; root: string } | null> {
  const x5c = header.x5c;
  if (!Array.isArray(x5c) || x5c.length === 0 || !x5c.every((der) => typeof der === "string")) return null;
  for (const root of roots) {
    const chain = await x5cChainKey(x5c, root, now);
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
