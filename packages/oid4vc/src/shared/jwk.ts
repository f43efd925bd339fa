import { createHash } from "node:crypto";
import type { JWK } from "jose";

/** JWK members that only a private (or symmetric) key has. */
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"] as const;

/** True when the JWK carries private or symmetric key material. */
export function hasPrivateKeyMaterial(jwk: Record<string, unknown>): boolean {
  return PRIVATE_MEMBERS.some((m) => jwk[m] !== undefined);
}

/** RFC 7638 §3.2 required members per key type, already in lexicographic order. */
const THUMBPRINT_MEMBERS: Record<string, readonly string[]> = {
  EC: ["crv", "kty", "x", "y"],
  RSA: ["e", "kty", "n"],
  OKP: ["crv", "kty", "x"], // RFC 8037 §2
  oct: ["k", "kty"],
};

/**
 * RFC 7638 JWK SHA-256 thumbprint, base64url encoded. Synchronous (node:crypto), so callers on the
 * issuance hot path do not pay for an extra promise per key.
 */
export function jwkThumbprintKid(jwk: JWK | Record<string, unknown>): string {
  const record = jwk as Record<string, unknown>;
  const kty = record.kty;
  const members = typeof kty === "string" ? THUMBPRINT_MEMBERS[kty] : undefined;
  if (!members) throw new TypeError(`unsupported JWK kty for thumbprint: ${String(kty)}`);
  const canonical: Record<string, string> = {};
  for (const m of members) {
    const v = record[m];
    if (typeof v !== "string" || v.length === 0) throw new TypeError(`JWK member "${m}" missing`);
    canonical[m] = v;
  }
  // Members are inserted in sorted order, and JSON.stringify emits no whitespace: RFC 7638 §3.3.
  return createHash("sha256").update(JSON.stringify(canonical)).digest("base64url");
}

/** The public part of an EC/OKP/RSA JWK: the thumbprint members plus `kid`/`alg`/`use` if present. */
export function toPublicJwk(jwk: JWK): JWK {
  const { kty } = jwk;
  const out: JWK = { kty };
  const record = jwk as Record<string, unknown>;
  const members = (kty && THUMBPRINT_MEMBERS[kty]) ?? [];
  if (kty === "oct") throw new TypeError("symmetric keys have no public part");
  for (const m of [...members, "kid", "alg", "use"]) {
    const v = record[m];
    if (typeof v === "string") (out as Record<string, unknown>)[m] = v;
  }
  return out;
}
