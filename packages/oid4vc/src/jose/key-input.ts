import { createPrivateKey, createPublicKey, type KeyObject, type webcrypto } from "node:crypto";
import type { JWK } from "jose";

/** A JSON Web Key (jose's type: `kid`, `alg`, `use`, … are strings). */
export type Jwk = JWK;

type CryptoKey = webcrypto.CryptoKey;

/** A key as callers hold it: a JWK (e.g. loaded from storage), a Node `KeyObject` or a WebCrypto key. */
export type KeyInput = Jwk | KeyObject | CryptoKey;

const MAX_CACHED = 1024;
const privateCache = new Map<string, KeyObject>();
const publicCache = new Map<string, KeyObject>();

function remember(cache: Map<string, KeyObject>, id: string, key: KeyObject): KeyObject {
  if (cache.size >= MAX_CACHED) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  cache.set(id, key);
  return key;
}

function isJwk(key: KeyInput): key is Jwk {
  return typeof key === "object" && key !== null && "kty" in key && typeof (key as Jwk).kty === "string";
}

/**
 * Imports a private key once and caches the result (unless `cache: false`) (bounded, insertion-ordered) keyed by its JWK
 * members, so request-object signing and response decryption don't re-import a stored JWK every time.
 */
export function toPrivateKey(key: KeyInput, options: { cache?: boolean } = {}): KeyObject | CryptoKey {
  if (!isJwk(key)) return key;
  const id = `${key.kty}|${key.crv}|${key.x}|${key.y}|${key.d}`;
  const cached = privateCache.get(id);
  if (cached) return cached;
  const imported = createPrivateKey({
    key: { kty: key.kty, crv: key.crv, x: key.x, y: key.y, d: key.d },
    format: "jwk",
  } as Parameters<typeof createPrivateKey>[0]);
  // Single-use keys (per-request decryption keys) would only evict the long-lived ones.
  return options.cache === false ? imported : remember(privateCache, id, imported);
}

/** Public-key counterpart of `toPrivateKey` (cached). */
export function toPublicKey(key: KeyInput): KeyObject | CryptoKey {
  if (!isJwk(key)) return key;
  const id = `${key.kty}|${key.crv}|${key.x}|${key.y}`;
  const cached = publicCache.get(id);
  if (cached) return cached;
  return remember(
    publicCache,
    id,
    createPublicKey({ key: { kty: key.kty, crv: key.crv, x: key.x, y: key.y }, format: "jwk" } as Parameters<
      typeof createPublicKey
    >[0]),
  );
}

/** The public members of an EC/OKP JWK (drops `d` and anything private). */
export function publicJwk(jwk: Jwk): Jwk {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...rest } = jwk;
  return rest;
}
