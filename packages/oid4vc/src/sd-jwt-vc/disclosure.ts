import { createHash } from "node:crypto";
import { base64urlDecodeJson, base64urlEncodeJson } from "../jose/base64url";
import { pooledRandomBytes } from "../jose/random";

/** The only `_sd_alg` this package issues and accepts. */
export const SD_ALG = "sha-256";

export interface Disclosure {
  /** The base64url-encoded disclosure exactly as it appears in the SD-JWT. */
  encoded: string;
  /** base64url(SHA-256(ASCII(encoded))), the value referenced from `_sd` or `{"...": digest}`. */
  digest: string;
  salt: string;
  /** Present for object properties, absent for array elements. */
  name?: string;
  value: unknown;
}

/** 128 bits of randomness, base64url encoded (RFC 9901 §9.3). */
export function generateSalt(): string {
  return pooledRandomBytes(16).toString("base64url");
}

/** RFC 9901 §4.2.3: digest over the US-ASCII bytes of the encoded disclosure. */
export function digestDisclosure(encoded: string): string {
  return createHash("sha256").update(encoded, "ascii").digest("base64url");
}

/** RFC 9901 §4.2.1 / §4.2.2: `[salt, name, value]` for properties, `[salt, value]` for array elements. */
export function createDisclosure(salt: string, name: string | undefined, value: unknown): Disclosure {
  const encoded = base64urlEncodeJson(name === undefined ? [salt, value] : [salt, name, value]);
  const disclosure: Disclosure = { encoded, digest: digestDisclosure(encoded), salt, value };
  if (name !== undefined) disclosure.name = name;
  return disclosure;
}

/** A decoy digest (RFC 9901 §4.2.5): the hash of a fresh random value, indistinguishable from a real digest. */
export function createDecoyDigest(): string {
  return createHash("sha256")
    .update(pooledRandomBytes(16).toString("base64url"), "ascii")
    .digest("base64url");
}

/** Parses and hashes one disclosure; throws `TypeError` when it is not a 2- or 3-element JSON array as RFC 9901 requires. */
export function parseDisclosure(encoded: string): Disclosure {
  let decoded: unknown;
  try {
    decoded = base64urlDecodeJson(encoded);
  } catch {
    throw new TypeError("disclosure is not base64url-encoded JSON");
  }
  if (!Array.isArray(decoded) || (decoded.length !== 2 && decoded.length !== 3)) {
    throw new TypeError("disclosure must be a JSON array of 2 or 3 elements");
  }
  const [salt] = decoded;
  if (typeof salt !== "string") throw new TypeError("disclosure salt must be a string");
  const digest = digestDisclosure(encoded);
  if (decoded.length === 2) return { encoded, digest, salt, value: decoded[1] };
  const name = decoded[1];
  if (typeof name !== "string") throw new TypeError("disclosure claim name must be a string");
  return { encoded, digest, salt, name, value: decoded[2] };
}
