import { CLIENT_ATTESTATION_CHALLENGE_HEADER, DPOP_SIGNING_ALGS, type OAuthError } from "@cred/oid4vc";
import type { FastifyReply } from "fastify";

/**
 * The one renderer of OAuth errors on wallet endpoints, issuance and verification alike: the error's
 * status, `{ error, error_description }` as JSON, `Cache-Control: no-store` (RFC 6749 §5.1, OpenID4VCI
 * §6.3, §8.3.1.2, OpenID4VP §8.5), and the headers its data asks for: `WWW-Authenticate` from its
 * challenge (RFC 6750 §3, RFC 9449 §7.1), `DPoP-Nonce` (RFC 9449 §8, §9) and
 * `OAuth-Client-Attestation-Challenge` (attestation-based client auth §8) with the fresh values it carries.
 */
export function sendOAuthError(reply: FastifyReply, error: OAuthError) {
  const headers = oauthErrorHeaders(error);
  reply.request.oauthError = error.error;
  return reply.code(error.status).headers(headers).type("application/json").send(error.toJSON());
}

/** The headers of an OAuth error's response (see `sendOAuthError`). */
export function oauthErrorHeaders(error: OAuthError): Record<string, string> {
  const headers: Record<string, string> = { "Cache-Control": "no-store" };
  const challenge = wwwAuthenticate(error);
  if (challenge !== undefined) headers["WWW-Authenticate"] = challenge;
  if (error.dpopNonce !== undefined) headers["DPoP-Nonce"] = error.dpopNonce;
  if (error.attestationChallenge !== undefined)
    headers[CLIENT_ATTESTATION_CHALLENGE_HEADER] = error.attestationChallenge;
  return headers;
}

/**
 * `WWW-Authenticate`: each scheme of the challenge, the first with the error and its description when
 * the challenge names it, and `DPoP` with the proof algorithms it takes (`Bearer error="invalid_token",
 * error_description="…"`; `DPoP error="…", error_description="…", algs="ES256"`; `Bearer, DPoP algs="ES256"`).
 * The description is already limited to characters a quoted string may hold (`sanitizeErrorDescription`).
 */
function wwwAuthenticate(error: OAuthError): string | undefined {
  const challenge = error.challenge;
  if (!challenge) return undefined;
  return challenge.schemes
    .map((scheme, i) => {
      const params: string[] = [];
      if (challenge.withError && i === 0) {
        params.push(`error="${error.error}"`);
        if (error.error_description !== undefined)
          params.push(`error_description="${error.error_description}"`);
      }
      if (scheme === "DPoP") params.push(`algs="${DPOP_SIGNING_ALGS.join(" ")}"`);
      return params.length > 0 ? `${scheme} ${params.join(", ")}` : scheme;
    })
    .join(", ");
}
