import type { PresentedAccessToken, PresentedCredentials } from "@cred/core/wallet";
import { invalidToken } from "@cred/core/wallet";
import { OAuthError } from "@cred/oid4vc";
import type { FastifyRequest } from "fastify";

/** Every value of a request header, in order (none when it is absent). */
export function headerValues(request: FastifyRequest, name: string): string[] {
  const value = request.headers[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** The scheme and access token of `Authorization: Bearer …` or `Authorization: DPoP …`, or null. */
export function accessTokenOf(header: string | undefined): PresentedAccessToken | null {
  const match = /^(Bearer|DPoP) +([A-Za-z0-9._~+/=-]+)$/i.exec(header?.trim() ?? "");
  if (!match) return null;
  return { scheme: match[1]!.toLowerCase() === "dpop" ? "DPoP" : "Bearer", token: match[2]! };
}

/**
 * 401 for a request without any credentials: RFC 6750 §3.1 has the challenge carry no error code then
 * (`WWW-Authenticate: Bearer`); the body still says what is missing. RFC 9449 §7.1: a resource that
 * takes both schemes names both.
 */
function missingToken() {
  return new OAuthError("invalid_token", "An access token is required (Bearer, or DPoP with a proof).", {
    status: 401,
    challenge: { schemes: ["Bearer", "DPoP"], withError: false },
  });
}

/**
 * What a wallet presented to a protected endpoint (credential, deferred credential, notification): the
 * access token of its `Authorization` header and its `DPoP` proofs. No `Authorization` is 401 with a
 * challenge naming both schemes; one that is not `Bearer <token>` or `DPoP <token>` is 401 `invalid_token`.
 */
export function presentedCredentials(request: FastifyRequest): PresentedCredentials {
  const authorization = request.headers.authorization;
  if (!authorization?.trim()) throw missingToken();
  const accessToken = accessTokenOf(authorization);
  if (!accessToken)
    throw invalidToken("Send the access token as Authorization: Bearer <token> (or DPoP <token>).");
  return { accessToken, dpopProofs: headerValues(request, "dpop") };
}
