import { randomB64url } from "../jose/encoding";

/** A fresh request `nonce`: 256 random bits, base64url (URL-safe characters only, OpenID4VP §5.2). */
export function generateNonce(): string {
  return randomB64url(32);
}

/** A fresh `state` (also the request id, §13.3): 256 random bits, base64url. */
export function generateState(): string {
  return randomB64url(32);
}

/** A fresh `response_code` for the same-device redirect (≥128 bits, §8.2). */
export function generateResponseCode(): string {
  return randomB64url(32);
}

/** `nonce`/`state` alphabet: ASCII URL-safe characters (letters, digits, `-`, `.`, `_`, `~`). */
export const URL_SAFE_VALUE = /^[A-Za-z0-9._~-]+$/;
