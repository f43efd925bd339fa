import { KeyObject, sign as signBytes, verify as verifySignature } from "node:crypto";
import type { CryptoKey, JWK } from "jose";
import { base64urlDecodeJson, base64urlEncodeJson } from "./base64url";
import { es256PublicKeyObject } from "./keys";
import { isPlainObject } from "./plain-object";

export { isPlainObject };

export interface JwsHeader {
  alg: string;
  typ?: string;
  kid?: string;
  jwk?: JWK;
  x5c?: string[];
  [name: string]: unknown;
}

function isP256(key: KeyObject): boolean {
  return key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1";
}

/**
 * The node:crypto KeyObject behind a CryptoKey, looked up once per key. Signing and verifying go through
 * node:crypto's synchronous one-shot calls: WebCrypto runs each operation as a job on libuv's thread
 * pool, whose hand-off (waking a pool thread, then the event loop) cost the request thread more than the
 * ECDSA arithmetic itself (~0.2 ms per call against ~0.04 ms).
 */
const keyObjects = new WeakMap<CryptoKey, KeyObject>();

function keyObjectOf(key: CryptoKey | KeyObject): KeyObject {
  if (key instanceof KeyObject) return key;
  let object = keyObjects.get(key);
  if (!object) {
    object = KeyObject.from(key as unknown as Parameters<typeof KeyObject.from>[0]);
    keyObjects.set(key, object);
  }
  return object;
}

/**
 * A P-256 key held elsewhere (a hardware security module, a cloud KMS): it signs the JWS signing input
 * with ES256 and returns the raw `r || s` signature (64 bytes). No private key material crosses it.
 */
export interface Es256Signer {
  signEs256(signingInput: Uint8Array): Promise<Uint8Array>;
}

/** What signs an ES256 JWS: a private key in this process, or a signer that holds its key elsewhere. */
export type Es256SigningKey = CryptoKey | KeyObject | Es256Signer;

export function isEs256Signer(key: unknown): key is Es256Signer {
  return typeof (key as Partial<Es256Signer> | null)?.signEs256 === "function";
}

/** Any ES256 signing key as an `Es256Signer` (a key in the process signs through node:crypto). */
export function es256SignerOf(key: Es256SigningKey): Es256Signer {
  if (isEs256Signer(key)) return key;
  const object = keyObjectOf(key);
  if (object.type !== "private" || !isP256(object)) {
    throw new TypeError("expected an ECDSA P-256 private key for ES256");
  }
  return {
    signEs256: async (signingInput) =>
      signBytes("sha256", signingInput, { key: object, dsaEncoding: "ieee-p1363" }),
  };
}

/** Signs a compact JWS with ES256 (the raw `r || s` signature JWS needs) with a P-256 private key. */
export async function signEs256Jwt(
  header: JwsHeader,
  payload: object,
  privateKey: Es256SigningKey,
): Promise<string> {
  if (header.alg !== "ES256") throw new TypeError("only ES256 is supported");
  if (isEs256Signer(privateKey)) {
    const signingInput = `${base64urlEncodeJson(header)}.${base64urlEncodeJson(payload)}`;
    const signature = await privateKey.signEs256(Buffer.from(signingInput, "ascii"));
    if (signature.length !== 64) throw new TypeError("an ES256 signature is 64 bytes (r || s)");
    return `${signingInput}.${Buffer.from(signature).toString("base64url")}`;
  }
  const key = keyObjectOf(privateKey);
  if (key.type !== "private" || !isP256(key)) {
    throw new TypeError("expected an ECDSA P-256 private key for ES256");
  }
  const signingInput = `${base64urlEncodeJson(header)}.${base64urlEncodeJson(payload)}`;
  const signature = signBytes("sha256", Buffer.from(signingInput, "ascii"), {
    key,
    dsaEncoding: "ieee-p1363",
  });
  return `${signingInput}.${signature.toString("base64url")}`;
}

/**
 * Whether a JOSE `typ` header names the media type `expected` (given without "application/", as these
 * types always are). RFC 7515 §4.1.9: media types are case-insensitive, and a value without a "/" means
 * "application/" + the value, so `application/kb+jwt` and `KB+JWT` name `kb+jwt` too.
 */
export function typIs(typ: unknown, expected: string): boolean {
  if (typeof typ !== "string") return false;
  const lower = typ.toLowerCase();
  return (lower.startsWith("application/") ? lower.slice("application/".length) : lower) === expected;
}

/** Whether a JWT's `aud` names `audience`: it is that string, or an array holding it (RFC 7519 §4.1.3). */
export function audienceIncludes(aud: string | readonly string[], audience: string): boolean {
  return typeof aud === "string" ? aud === audience : aud.includes(audience);
}

export interface DecodedJwt {
  header: JwsHeader;
  payload: Record<string, unknown>;
}

/** Parses (without verifying) a compact JWT whose header and payload are JSON objects; throws on malformed input. */
export function decodeJwtUnverified(jwt: string): DecodedJwt {
  const parts = jwt.split(".");
  if (parts.length !== 3 || parts.some((p) => p.length === 0)) throw new TypeError("not a compact JWS");
  const header = base64urlDecodeJson(parts[0]!);
  const payload = base64urlDecodeJson(parts[1]!);
  if (!isPlainObject(header) || typeof header.alg !== "string")
    throw new TypeError("JWS header is not an object");
  if (!isPlainObject(payload)) throw new TypeError("JWT payload is not an object");
  return { header: header as JwsHeader, payload };
}

/** A verification key: an imported CryptoKey (preferred, no per-call import) or a public JWK. */
export type VerificationKey = CryptoKey | JWK;

/** What `verifyEs256Signature` takes: a CryptoKey, or a node:crypto public KeyObject. */
export type Es256PublicKey = CryptoKey | KeyObject;

export function isCryptoKey(key: unknown): key is CryptoKey {
  return (
    typeof key === "object" &&
    key !== null &&
    (key as { [Symbol.toStringTag]?: string })[Symbol.toStringTag] === "CryptoKey"
  );
}

export async function toEs256VerificationKey(key: VerificationKey): Promise<Es256PublicKey> {
  return isCryptoKey(key) ? key : es256PublicKeyObject(key);
}

/**
 * Verifies a compact JWS signature with ES256 only (never `none`, never HMAC), with the header rules of
 * jose's compactVerify (no `crit`, no unencoded payload). Returns true/false rather than throwing, so that
 * callers map failures to their own error codes.
 */
export async function verifyEs256Signature(jwt: string, key: Es256PublicKey): Promise<boolean> {
  const publicKey = keyObjectOf(key);
  if (publicKey.type !== "public" || !isP256(publicKey)) return false;
  const parts = jwt.split(".");
  if (parts.length !== 3) return false;
  let header: unknown;
  try {
    header = base64urlDecodeJson(parts[0]!);
  } catch {
    return false;
  }
  if (!isPlainObject(header) || header.alg !== "ES256" || "crit" in header || header.b64 === false)
    return false;
  const signature = Buffer.from(parts[2]!, "base64url");
  if (signature.length !== 64 || signature.toString("base64url") !== parts[2]) return false;
  try {
    return verifySignature(
      "sha256",
      Buffer.from(`${parts[0]}.${parts[1]}`, "ascii"),
      { key: publicKey, dsaEncoding: "ieee-p1363" },
      signature,
    );
  } catch {
    return false;
  }
}
