import { jwkThumbprintKid } from "../jose/jwk";
import type { Jwk } from "../jose/key-input";

/**
 * The `did:web` of a web location (did:web method §3.1 "Create"): the host of `baseUrl` (a port
 * percent-encoded as `%3A`), then `baseUrl`'s own path segments and `segments`, joined with `:`. The
 * DID document then lives at `<baseUrl>/<segments…>/did.json` (§3.2 "Read"). Segments must be
 * URL-safe (letters, digits, `.`, `_`, `-`).
 */
export function didWebOf(baseUrl: string, segments: readonly string[]): string {
  const url = new URL(baseUrl);
  const path = [...url.pathname.split("/").filter(Boolean), ...segments];
  for (const segment of path) {
    if (!/^[A-Za-z0-9._-]+$/.test(segment))
      throw new TypeError(`did:web path segment ${segment} is not URL-safe`);
  }
  const host = url.host.toLowerCase().replace(":", "%3A");
  return ["did:web", host, ...path].join(":");
}

/**
 * Where a `did:web` document is read (did:web §3.2): `https://<host>/<path…>/did.json`, or
 * `https://<host>/.well-known/did.json` without a path. `scheme` is for tests against plain-http loopback
 * servers only; the method itself is https.
 */
export function didWebDocumentUrl(did: string, scheme: "https" | "http" = "https"): string {
  if (!did.startsWith("did:web:")) throw new TypeError(`${did} is not a did:web`);
  const [host, ...path] = did.slice("did:web:".length).split(":");
  if (!host) throw new TypeError(`${did} names no host`);
  const authority = decodeURIComponent(host);
  return path.length === 0
    ? `${scheme}://${authority}/.well-known/did.json`
    : `${scheme}://${authority}/${path.map(decodeURIComponent).join("/")}/did.json`;
}

/** The verification method id (a DID URL) of a key in a did:web document: `<did>#<JWK thumbprint>`. */
export function didWebVerificationMethod(did: string, publicJwk: Jwk): string {
  return `${did}#${jwkThumbprintKid(publicJwk)}`;
}

/**
 * The DID document of a `did:web` controlled by one P-256 key (DID Core 1.0): one `JsonWebKey2020`
 * verification method (id `<did>#<JWK thumbprint>`, `publicKeyJwk` with the key's public members only),
 * referenced from `assertionMethod` and `authentication`.
 */
export function didWebDocument(did: string, publicJwk: Jwk) {
  const { kty, crv, x, y } = publicJwk as Record<string, unknown>;
  if (kty !== "EC" || crv !== "P-256" || typeof x !== "string" || typeof y !== "string") {
    throw new TypeError("the did:web document here is for public P-256 keys");
  }
  const id = didWebVerificationMethod(did, publicJwk);
  return {
    "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/jws-2020/v1"],
    id: did,
    verificationMethod: [{ id, type: "JsonWebKey2020", controller: did, publicKeyJwk: { kty, crv, x, y } }],
    assertionMethod: [id],
    authentication: [id],
  };
}
