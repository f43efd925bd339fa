import { createHash } from "node:crypto";
import type { JWK } from "jose";
import { isPlainObject } from "./plain-object";

/** JWK members that only a private (or symmetric) key has. */
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"] as const;

/** True when the JWK carries private or symmetric key material. */
export function hasPrivateKeyMaterial(jwk: Record<string, unknown>): boolean {
  return PRIVATE_MEMBERS.some((m) => jwk[m] !== undefined);
}

/** Why a key a holder sent (a key proof's or a DPoP proof's `jwk`) is refused. */
export type HolderKeyProblem = "not_an_object" | "private_key_material" | "not_p256";

/**
 * The public EC P-256 JWK (`kty`, `crv`, `x`, `y` only) a holder's key header names, or why it cannot be
 * taken: not an object, private members present, or another key type or curve.
 */
export function holderP256Jwk(value: unknown): JWK | HolderKeyProblem {
  if (!isPlainObject(value)) return "not_an_object";
  if (hasPrivateKeyMaterial(value)) return "private_key_material";
  if (
    value.kty !== "EC" ||
    value.crv !== "P-256" ||
    typeof value.x !== "string" ||
    typeof value.y !== "string"
  )
    return "not_p256";
  return { kty: "EC", crv: "P-256", x: value.x, y: value.y };
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
