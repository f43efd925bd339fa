import { createPublicKey, type KeyObject } from "node:crypto";
import { type CryptoKey, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { hasPrivateKeyMaterial, jwkThumbprintKid, toPublicJwk } from "./jwk";

export interface Es256KeyPair {
  /** Private JWK (`kty`, `crv`, `x`, `y`, `d`) with the same `kid`/`alg`/`use` as the public one. */
  privateJwk: JWK;
  /** Public JWK with `kid` = RFC 7638 thumbprint, `alg: "ES256"`, `use: "sig"`. */
  publicJwk: JWK;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

/** Generates a P-256 key pair for ES256. The private CryptoKey is extractable so that it can be stored. */
export async function generateEs256KeyPair(): Promise<Es256KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  const exported = await exportJWK(privateKey);
  const kid = jwkThumbprintKid(exported);
  const privateJwk: JWK = { ...exported, kid, alg: "ES256", use: "sig" };
  const publicJwk = toPublicJwk(privateJwk);
  return { privateJwk, publicJwk, privateKey, publicKey };
}

function assertP256(jwk: JWK): void {
  if (jwk.kty !== "EC" || jwk.crv !== "P-256") throw new TypeError("ES256 needs an EC P-256 JWK");
  if (jwk.alg !== undefined && jwk.alg !== "ES256") throw new TypeError(`JWK alg ${jwk.alg} is not ES256`);
}

/**
 * Imports a private ES256 JWK as a CryptoKey. Do this once per key and keep the CryptoKey: importing
 * costs more than signing.
 */
export async function importEs256PrivateKey(
  jwk: JWK,
  options: { extractable?: boolean } = {},
): Promise<CryptoKey> {
  assertP256(jwk);
  if (typeof jwk.d !== "string") throw new TypeError("JWK has no private key material");
  const key = await importJWK(jwk, "ES256", { extractable: options.extractable ?? false });
  return key as CryptoKey;
}

/**
 * A public ES256 JWK as a node:crypto KeyObject, for one-off verifications (holder keys of proofs and
 * KB-JWTs): synchronous and several times cheaper than a WebCrypto import. Private members are refused;
 * a point not on the curve throws.
 */
export function es256PublicKeyObject(jwk: JWK): KeyObject {
  assertP256(jwk);
  if (hasPrivateKeyMaterial(jwk as Record<string, unknown>)) throw new TypeError("expected a public JWK");
  if (typeof jwk.x !== "string" || typeof jwk.y !== "string") throw new TypeError("JWK has no x or y");
  return createPublicKey({ key: { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y }, format: "jwk" });
}

/** Imports a public ES256 JWK (private members are refused, so a private key is never used to verify). */
export async function importEs256PublicKey(jwk: JWK): Promise<CryptoKey> {
  assertP256(jwk);
  if (hasPrivateKeyMaterial(jwk as Record<string, unknown>)) throw new TypeError("expected a public JWK");
  const key = await importJWK(jwk, "ES256");
  return key as CryptoKey;
}
