import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower case

function encodeTime(ms: number): string {
  let out = "";
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

function randomPart(chars: number): string {
  const bytes = randomBytes(chars);
  let out = "";
  for (let i = 0; i < chars; i++) out += ALPHABET[bytes[i]! & 31];
  return out;
}

/**
 * Prefixed, time-ordered identifiers (`iss_01j…`): lexical order is creation order, so lists page
 * by id alone, and 80 random bits make them unguessable.
 */
export function newId(prefix: string): string {
  return `${prefix}_${encodeTime(Date.now())}${randomPart(16)}`;
}

/** Random URL-safe secret with `bytes` of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}
