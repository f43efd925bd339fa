import type { Jwk } from "../jose/key-input";

/** The client identifier prefix of a verifier identified by a DID (OpenID4VP §5.9.3). */
export const DECENTRALIZED_IDENTIFIER_PREFIX = "decentralized_identifier:";

/**
 * The `did:jwk` of a public P-256 key (did:jwk method: base64url of the JWK's UTF-8 JSON), from the
 * key's required members only (`crv`, `kty`, `x`, `y`, in that order), so that the same key always
 * names the same DID whatever else its JWK carries.
 */
export function didJwkOf(publicJwk: Jwk): string {
  const { crv, kty, x, y } = publicJwk as Record<string, unknown>;
  if (kty !== "EC" || crv !== "P-256" || typeof x !== "string" || typeof y !== "string") {
    throw new TypeError("did:jwk here is for public P-256 keys");
  }
  return `did:jwk:${Buffer.from(JSON.stringify({ crv, kty, x, y })).toString("base64url")}`;
}

/** The DID URL of a did:jwk's one verification method (did:jwk method: always `#0`). */
export function didJwkVerificationMethod(did: string): string {
  return `${did}#0`;
}
