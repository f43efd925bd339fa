import { createECDH } from "node:crypto";
import { CompactEncrypt, compactDecrypt, decodeProtectedHeader } from "jose";
import {
  decryptEcdhEsCompactJwe,
  encryptEcdhEsCompactJwe,
  jwkCoordinates,
  type P256PrivateScalar,
  type P256PublicPoint,
} from "../jose/ecdh-es-jwe";
import { randomB64url } from "../jose/encoding";
import { isCryptoKey } from "../jose/jws";
import { type Jwk, type KeyInput, toPrivateKey, toPublicKey } from "../jose/key-input";
import { VpError } from "./errors";
import { type ResponseEncValue, SUPPORTED_RESPONSE_ENC_VALUES } from "./request-object";

export interface ResponseEncryptionKey {
  /** Goes into `client_metadata.jwks` of the request: `{ kty, crv, x, y, kid, alg: "ECDH-ES", use: "enc" }`. */
  publicJwk: Jwk;
  /** Keep with the session (secret) to decrypt the response; same members plus `d`. */
  privateJwk: Jwk;
}

/** A fresh, per-request ECDH-ES P-256 key pair for `direct_post.jwt` (HAIP: ephemeral key per request). */
export function generateResponseEncryptionKey(): ResponseEncryptionKey {
  // createECDH yields the raw scalar and point directly, about ten times cheaper than generating a KeyObject
  // pair and exporting it as a JWK.
  const ecdh = createECDH("prime256v1");
  const point = ecdh.generateKeys();
  const scalar = ecdh.getPrivateKey();
  // The scalar comes without leading zero bytes; a JWK's `d` is always the full 32 (RFC 7518 §6.2.2.1).
  const d = Buffer.concat([Buffer.alloc(32 - scalar.length), scalar]).toString("base64url");
  const kid = randomB64url(16);
  const publicJwk: Jwk = {
    kty: "EC",
    crv: "P-256",
    ...jwkCoordinates(point),
    kid,
    alg: "ECDH-ES",
    use: "enc",
  };
  return { publicJwk, privateJwk: { ...publicJwk, d } };
}

export interface JweHeader {
  alg?: string;
  enc?: string;
  kid?: string;
}

/** Reads the protected header of a compact JWE without decrypting (e.g. to find the session by `kid`). */
export function readJweHeader(jwe: string): JweHeader {
  try {
    const header = decodeProtectedHeader(jwe) as JweHeader;
    if (jwe.split(".").length !== 5) throw new Error("not a compact JWE");
    return header;
  } catch (cause) {
    throw new VpError("invalid_request", "response is not a compact JWE", { cause });
  }
}

const decoder = new TextDecoder();

function isP256PublicJwk(key: Jwk): key is Jwk & P256PublicPoint {
  return key.kty === "EC" && key.crv === "P-256" && typeof key.x === "string" && typeof key.y === "string";
}

function isP256PrivateJwk(key: unknown): key is P256PrivateScalar {
  const jwk = key as Partial<Jwk> | null;
  return (
    typeof jwk === "object" &&
    jwk !== null &&
    jwk.kty === "EC" &&
    jwk.crv === "P-256" &&
    typeof jwk.d === "string"
  );
}

/**
 * Decrypts a `direct_post.jwt` response (OpenID4VP §8.3): compact JWE, `alg` ECDH-ES, `enc` A128GCM or
 * A256GCM, `kid` equal to the key's `kid` (required when the key has one). Returns the payload object.
 * Any failure is a `VpError` with `invalid_request`.
 */
export async function decryptDirectPostJwt(
  jwe: string,
  privateJwk: Jwk | KeyInput,
  options: { expectedKid?: string; allowedEnc?: readonly ResponseEncValue[] } = {},
): Promise<Record<string, unknown>> {
  const header = readJweHeader(jwe);
  const allowedEnc: readonly string[] = options.allowedEnc ?? SUPPORTED_RESPONSE_ENC_VALUES;
  if (header.alg !== "ECDH-ES")
    throw new VpError("invalid_request", `unsupported JWE alg ${String(header.alg)}`);
  if (!header.enc || !allowedEnc.includes(header.enc)) {
    throw new VpError("invalid_request", `unsupported JWE enc ${String(header.enc)}`);
  }
  const expectedKid = options.expectedKid ?? ("kty" in privateJwk ? (privateJwk as Jwk).kid : undefined);
  if (expectedKid !== undefined && header.kid !== expectedKid) {
    throw new VpError("invalid_request", "JWE kid does not match the request's encryption key");
  }
  let plaintext: Uint8Array;
  try {
    // A stored JWK goes to the key agreement as raw material: importing an ephemeral, single-use key costs
    // more than the agreement itself. Only a WebCrypto key takes jose's route.
    const key = isP256PrivateJwk(privateJwk) ? privateJwk : toPrivateKey(privateJwk, { cache: false });
    if (isCryptoKey(key)) {
      const options = { keyManagementAlgorithms: ["ECDH-ES"], contentEncryptionAlgorithms: [...allowedEnc] };
      plaintext = (await compactDecrypt(jwe, key, options)).plaintext;
    } else {
      plaintext = decryptEcdhEsCompactJwe(jwe, key, allowedEnc).plaintext;
    }
  } catch (cause) {
    throw new VpError("invalid_request", "response could not be decrypted", { cause });
  }
  let payload: unknown;
  try {
    payload = JSON.parse(decoder.decode(plaintext));
  } catch (cause) {
    throw new VpError("invalid_request", "decrypted response is not JSON", { cause });
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    throw new VpError("invalid_request", "decrypted response is not a JSON object");
  }
  return payload as Record<string, unknown>;
}

const encoder = new TextEncoder();

/**
 * Wallet side (tests, benchmarks): encrypts the response parameters to the verifier's key from
 * `client_metadata.jwks`, copying its `kid`; `alg` is the key's `alg` (ECDH-ES). ECDH-ES to a P-256 key
 * with AES-GCM goes through node:crypto directly; anything else (negative tests) through jose.
 */
export async function encryptDirectPostJwtResponse(
  payload: Record<string, unknown>,
  verifierPublicJwk: Jwk,
  enc: ResponseEncValue | string = "A128GCM",
): Promise<string> {
  const alg = typeof verifierPublicJwk.alg === "string" ? verifierPublicJwk.alg : "ECDH-ES";
  const kid = verifierPublicJwk.kid ? { kid: verifierPublicJwk.kid } : {};
  if (alg === "ECDH-ES" && (enc === "A128GCM" || enc === "A256GCM") && isP256PublicJwk(verifierPublicJwk)) {
    return encryptEcdhEsCompactJwe(encoder.encode(JSON.stringify(payload)), verifierPublicJwk, enc, kid);
  }
  return new CompactEncrypt(encoder.encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg, enc, ...kid })
    .encrypt(toPublicKey(verifierPublicJwk));
}
