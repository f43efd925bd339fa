import type { BrowserBindingCookie, IssuerNonces } from "@cred/core/wallet";
import { CLIENT_ATTESTATION_CHALLENGE_HEADER } from "@cred/oid4vc";

/** Protocol responses must not be cached (OpenID4VCI §6.2, §7.2, §8.3; RFC 6749 §5.1). */
export const NO_STORE = { "Cache-Control": "no-store" } as const;

/** The `DPoP-Nonce` header of a response of an issuer that requires nonces (RFC 9449 §8.2), else none. */
export function dpopNonceHeader(nonces: IssuerNonces | undefined): Record<string, string> {
  return nonces ? { "DPoP-Nonce": nonces.issue() } : {};
}

/** The fresh `OAuth-Client-Attestation-Challenge` of a response, where challenges are required (§8.2). */
export function attestationChallengeHeader(challenges: IssuerNonces | undefined): Record<string, string> {
  return challenges ? { [CLIENT_ATTESTATION_CHALLENGE_HEADER]: challenges.issue() } : {};
}

/** The `Set-Cookie` value of a binding cookie (or of its removal, with `maxAgeSeconds` 0). */
export function setCookieHeader(cookie: BrowserBindingCookie): string {
  return `${cookie.name}=${cookie.value}; Path=${cookie.path}; Max-Age=${cookie.maxAgeSeconds}; HttpOnly; Secure; SameSite=Lax`;
}
