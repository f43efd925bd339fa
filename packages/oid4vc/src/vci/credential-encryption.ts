import { createPublicKey } from "node:crypto";
import {
  decryptEcdhEsCompactJwe,
  encryptEcdhEsCompactJwe,
  openEcdhEsCompactJwe,
  type P256PrivateScalar,
  type ParsedEcdhEsJwe,
  parseEcdhEsCompactJwe,
} from "../jose/ecdh-es-jwe";
import { isPlainObject } from "../jose/jws";
import type { Jwk } from "../jose/key-input";

export type { P256PrivateScalar };

import { credentialError } from "./errors";

/**
 * Encrypted Credential Requests and Responses (OpenID4VCI 1.0 §10, §8.2, §8.3, §12.2.4): the wallet
 * encrypts its request to the issuer's published key and names the key the response is encrypted to.
 * Both are compact JWEs with `alg: ECDH-ES` on P-256 and `enc` A128GCM or A256GCM, whose plaintext is the
 * JSON claims set (a JWT, media type `application/jwt`). Compression (`zip`) is not offered, so no
 * decompression bomb can reach the credential endpoint.
 */
export const CREDENTIAL_ENCRYPTION_ALG = "ECDH-ES";
export const CREDENTIAL_ENCRYPTION_ENC_VALUES = ["A128GCM", "A256GCM"] as const;

/**
 * The issuer's request encryption key, as published in `credential_request_encryption.jwks`, with what
 * decrypts to it: the private scalar (a key in the process), or the ECDH key agreement of a key held
 * elsewhere (an HSM: only the shared secret Z comes back, the private key stays there).
 */
export interface CredentialEncryptionKey {
  publicJwk: Jwk & { kid: string };
  privateJwk?: P256PrivateScalar;
  /**
   * ECDH on P-256 with the sender's uncompressed point (checked to be on the curve): Z. An error it
   * throws (the key store unreachable) is the request's error, not a failed decryption.
   */
  deriveSharedSecret?: (senderPoint: Uint8Array) => Promise<Uint8Array>;
}

/** The request decrypted with one key, or undefined when it was not encrypted to it (the tag says so). */
async function decryptWith(
  jwe: string,
  parsed: ParsedEcdhEsJwe,
  key: CredentialEncryptionKey,
): Promise<Buffer | undefined> {
  if (key.privateJwk) {
    try {
      return decryptEcdhEsCompactJwe(jwe, key.privateJwk, CREDENTIAL_ENCRYPTION_ENC_VALUES).plaintext;
    } catch {
      return undefined;
    }
  }
  if (!key.deriveSharedSecret) throw new Error(`the encryption key ${key.publicJwk.kid} has no private part`);
  const z = await key.deriveSharedSecret(parsed.senderPoint);
  try {
    return openEcdhEsCompactJwe(parsed, z).plaintext;
  } catch {
    return undefined;
  }
}

export interface CredentialEncryptionMetadata {
  credential_request_encryption: {
    jwks: { keys: Jwk[] };
    enc_values_supported: string[];
    encryption_required: boolean;
  };
  credential_response_encryption: {
    alg_values_supported: string[];
    enc_values_supported: string[];
    encryption_required: boolean;
  };
}

/**
 * The two §12.2.4 metadata parameters. Response encryption needs an encrypted request (§8.2: otherwise an
 * attacker could substitute the response key), so both are offered together and required together.
 */
export function credentialEncryptionMetadata(
  publicJwk: Jwk,
  required: boolean,
): CredentialEncryptionMetadata {
  const { d: _private, ...published } = publicJwk;
  return {
    credential_request_encryption: {
      jwks: { keys: [published] },
      enc_values_supported: [...CREDENTIAL_ENCRYPTION_ENC_VALUES],
      encryption_required: required,
    },
    credential_response_encryption: {
      alg_values_supported: [CREDENTIAL_ENCRYPTION_ALG],
      enc_values_supported: [...CREDENTIAL_ENCRYPTION_ENC_VALUES],
      encryption_required: required,
    },
  };
}

const encryptionError = (description: string) =>
  credentialError("invalid_encryption_parameters", description);

/**
 * Decrypts an encrypted Credential Request (the body of an `application/jwt` POST) with the issuer's key.
 * A header the key cannot answer (another `kid`, `alg`, `enc` or a `zip`) is `invalid_encryption_parameters`;
 * a JWE that does not decrypt, or whose plaintext is not a JSON object, is `invalid_credential_request`.
 */
export async function decryptCredentialRequest(
  sent: string,
  candidates: readonly CredentialEncryptionKey[],
): Promise<Record<string, unknown>> {
  const jwe = sent.trim();
  const header = protectedHeaderOf(jwe);
  if (header.alg !== CREDENTIAL_ENCRYPTION_ALG)
    throw encryptionError(`the credential request must be encrypted with alg ${CREDENTIAL_ENCRYPTION_ALG}`);
  if (!CREDENTIAL_ENCRYPTION_ENC_VALUES.includes(header.enc as never))
    throw encryptionError(`enc must be one of ${CREDENTIAL_ENCRYPTION_ENC_VALUES.join(", ")}`);
  // §10: the JWE names the key it was encrypted to when that key has a kid (ours always have); a JWE
  // without one is tried with each key, current first: the AES-GCM tag tells the right one.
  const tried =
    header.kid === undefined ? candidates : candidates.filter((k) => k.publicJwk.kid === header.kid);
  if (tried.length === 0)
    throw encryptionError("kid does not name this issuer's credential_request_encryption key");
  if (header.zip !== undefined) throw encryptionError("compression (zip) is not supported");
  let parsed: ParsedEcdhEsJwe | undefined;
  try {
    parsed = parseEcdhEsCompactJwe(jwe, CREDENTIAL_ENCRYPTION_ENC_VALUES);
  } catch {}
  let plaintext: Buffer | undefined;
  for (const key of parsed ? tried : []) {
    plaintext = await decryptWith(jwe, parsed!, key);
    if (plaintext) break;
  }
  if (!plaintext) {
    throw credentialError(
      "invalid_credential_request",
      "the encrypted credential request could not be decrypted",
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(plaintext.toString("utf8"));
  } catch {
    body = undefined;
  }
  if (!isPlainObject(body))
    throw credentialError(
      "invalid_credential_request",
      "the encrypted credential request must hold a JSON object (the JWT claims set)",
    );
  return body;
}

function protectedHeaderOf(jwe: string): Record<string, unknown> {
  const parts = jwe.split(".");
  if (parts.length !== 5)
    throw credentialError(
      "invalid_credential_request",
      "an application/jwt credential request must be a compact JWE",
    );
  try {
    const header: unknown = JSON.parse(Buffer.from(parts[0]!, "base64url").toString("utf8"));
    if (isPlainObject(header)) return header;
  } catch {}
  throw credentialError("invalid_credential_request", "the JWE protected header is not a JSON object");
}

/** Where and how the wallet asked the Credential Response to be encrypted (§8.2). */
export interface ResponseEncryption {
  jwk: Jwk & { kty: "EC"; crv: "P-256"; x: string; y: string };
  enc: (typeof CREDENTIAL_ENCRYPTION_ENC_VALUES)[number];
}

/**
 * Reads `credential_response_encryption`: `jwk` a public P-256 key with `alg: ECDH-ES` (§10: "The alg
 * parameter MUST be present"), `enc` one we offer, and no `zip`. Anything else is
 * `invalid_encryption_parameters`.
 */
export function parseResponseEncryption(value: unknown): ResponseEncryption {
  if (!isPlainObject(value)) throw encryptionError("credential_response_encryption must be an object");
  const { jwk, enc, zip } = value;
  if (!isPlainObject(jwk)) throw encryptionError("credential_response_encryption.jwk must be a JWK object");
  if (jwk.kty !== "EC" || jwk.crv !== "P-256" || typeof jwk.x !== "string" || typeof jwk.y !== "string")
    throw encryptionError("credential_response_encryption.jwk must be an EC P-256 public key");
  if (jwk.d !== undefined)
    throw encryptionError("credential_response_encryption.jwk must not hold a private key");
  if (jwk.alg !== CREDENTIAL_ENCRYPTION_ALG)
    throw encryptionError(`credential_response_encryption.jwk.alg must be ${CREDENTIAL_ENCRYPTION_ALG}`);
  if (jwk.kid !== undefined && typeof jwk.kid !== "string")
    throw encryptionError("credential_response_encryption.jwk.kid must be a string");
  if (!CREDENTIAL_ENCRYPTION_ENC_VALUES.includes(enc as never))
    throw encryptionError(
      `credential_response_encryption.enc must be one of ${CREDENTIAL_ENCRYPTION_ENC_VALUES.join(", ")}`,
    );
  if (zip !== undefined) throw encryptionError("compression (zip) is not supported");
  // Checked now, before anything is issued: a response that cannot be encrypted would lose the credentials.
  const x = coordinate(jwk.x);
  const y = coordinate(jwk.y);
  try {
    if (!x || !y) throw new Error("not a coordinate");
    createPublicKey({ key: { kty: "EC", crv: "P-256", x, y }, format: "jwk" });
  } catch {
    throw encryptionError("credential_response_encryption.jwk is not a point on P-256");
  }
  const normalised = { ...jwk, x, y } as ResponseEncryption["jwk"];
  return { jwk: normalised, enc: enc as ResponseEncryption["enc"] };
}

/**
 * A coordinate as RFC 7518 §6.2.1.2 spells it (32 bytes, unpadded base64url), from what wallets send:
 * padding or standard base64 characters, a leading zero byte dropped (31 bytes or fewer) or added (33).
 * Undefined when it is no P-256 coordinate at all.
 */
function coordinate(value: string): string | undefined {
  if (!/^[A-Za-z0-9_\-+/]+={0,2}$/.test(value)) return undefined;
  let bytes = Buffer.from(value.replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_"), "base64url");
  while (bytes.length > 32 && bytes[0] === 0) bytes = bytes.subarray(1);
  if (bytes.length > 32 || bytes.length < 16) return undefined;
  return Buffer.concat([Buffer.alloc(32 - bytes.length), bytes]).toString("base64url");
}

/**
 * Encrypts a Credential Response to the wallet's key (checked by `parseResponseEncryption`): a fresh
 * ephemeral key per response, `kid` copied from the wallet's JWK when it has one (§10).
 */
export function encryptCredentialResponse(body: unknown, encryption: ResponseEncryption): string {
  const header = typeof encryption.jwk.kid === "string" ? { kid: encryption.jwk.kid } : {};
  return encryptEcdhEsCompactJwe(Buffer.from(JSON.stringify(body)), encryption.jwk, encryption.enc, header);
}

/**
 * The Credential Request as the issuer reads it: an `application/jwt` body decrypted with its key (§10),
 * any other as sent. An issuer that requires encryption refuses a plain request; one that offers none
 * refuses an encrypted one (`invalid_encryption_parameters` both).
 */
export async function readCredentialRequestBody(input: {
  contentType: string | undefined;
  body: unknown;
  /** The issuer's keys, current first (a replaced one may still decrypt); empty when it offers none. */
  keys: readonly CredentialEncryptionKey[];
  required: boolean;
}): Promise<{ body: unknown; encrypted: boolean }> {
  if (!isJwtMediaType(input.contentType)) {
    if (input.keys.length > 0 && input.required)
      throw encryptionError(
        "this issuer takes encrypted credential requests only: send an application/jwt JWE to its credential_request_encryption key",
      );
    return { body: input.body, encrypted: false };
  }
  if (input.keys.length === 0)
    throw encryptionError("this issuer does not take encrypted credential requests");
  if (typeof input.body !== "string")
    throw credentialError(
      "invalid_credential_request",
      "an application/jwt credential request must be a compact JWE",
    );
  return { body: await decryptCredentialRequest(input.body, input.keys), encrypted: true };
}

/**
 * The `kid` an encrypted credential request names: null when the request is not `application/jwt` (or
 * its header cannot be read; reading it then says why), undefined when it names none.
 */
export function encryptedRequestKid(
  contentType: string | undefined,
  body: unknown,
): string | undefined | null {
  if (!isJwtMediaType(contentType) || typeof body !== "string") return null;
  try {
    const kid = protectedHeaderOf(body.trim()).kid;
    return typeof kid === "string" ? kid : undefined;
  } catch {
    return null;
  }
}

/** Whether a Content-Type is `application/jwt` (parameters aside): an encrypted request (§10). */
function isJwtMediaType(contentType: string | undefined): boolean {
  return contentType?.split(";")[0]?.trim().toLowerCase() === "application/jwt";
}
