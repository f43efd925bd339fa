import { type KeyObject, verify as verifySignature, webcrypto } from "node:crypto";
import { type CryptoKey, compactVerify, type JWK } from "jose";
import { base64urlDecodeJson, base64urlEncode, base64urlEncodeJson } from "./base64url";
import { es256PublicKeyObject } from "./keys";

const ES256_SIGN = { name: "ECDSA", hash: "SHA-256" } as const;

export interface JwsHeader {
  alg: string;
  typ?: string;
  kid?: string;
  jwk?: JWK;
  x5c?: string[];
  [name: string]: unknown;
}

function assertEs256SigningKey(key: CryptoKey): void {
  const algorithm = key.algorithm as { name?: string; namedCurve?: string };
  if (key.type !== "private" || algorithm.name !== "ECDSA" || algorithm.namedCurve !== "P-256") {
    throw new TypeError("expected an ECDSA P-256 private CryptoKey for ES256");
  }
}

/**
 * Signs a compact JWS with ES256. WebCrypto already yields the raw `r || s` signature JWS needs, so
 * this is one `subtle.sign` call with no per-call key re-validation or re-import.
 */
export async function signEs256Jwt(
  header: JwsHeader,
  payload: object,
  privateKey: CryptoKey,
): Promise<string> {
  if (header.alg !== "ES256") throw new TypeError("only ES256 is supported");
  assertEs256SigningKey(privateKey);
  const signingInput = `${base64urlEncodeJson(header)}.${base64urlEncodeJson(payload)}`;
  const signature = await webcrypto.subtle.sign(
    ES256_SIGN,
    privateKey as unknown as webcrypto.CryptoKey,
    Buffer.from(signingInput, "ascii"),
  );
  return `${signingInput}.${base64urlEncode(new Uint8Array(signature))}`;
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
 * Verifies a compact JWS signature with ES256 only (never `none`, never HMAC). Returns true/false
 * rather than throwing, so that callers map failures to their own error codes.
 */
export async function verifyEs256Signature(jwt: string, key: Es256PublicKey): Promise<boolean> {
  if (isCryptoKey(key)) {
    try {
      await compactVerify(jwt, key, { algorithms: ["ES256"] });
      return true;
    } catch {
      return false;
    }
  }
  // KeyObject: node:crypto's synchronous verify, with the header rules compactVerify applies.
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
      { key, dsaEncoding: "ieee-p1363" },
      signature,
    );
  } catch {
    return false;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
