import type { UnitOfWork } from "@cred/db";
import { pkceVerifierMatches, type TAuthorizationCodeTokenRequest, tokenError } from "@cred/oid4vc";
import type { AppDeps } from "../shared/context";
import { randomToken } from "../shared/ids";
import { hashSecret } from "../shared/secret-box";
import { accessTokenRepository } from "./access-token-repository";
import { authorizationRequestRepository, type GrantedCode } from "./authorization-request-repository";
import { redemptionRepository } from "./redemption-repository";
import { tokenResponse } from "./token-response";

/**
 * A code used a second time: the access token its first use obtained is revoked (RFC 6749 §4.1.2), only
 * that one (another code of the same offer may hold the offer's token), and with it the sealed claims a
 * completed transaction kept for further requests with that token. Returns the error to throw.
 */
async function revokeTokensOf(db: UnitOfWork, granted: Pick<GrantedCode, "id" | "transactionId">) {
  await accessTokenRepository.revokeTokenOfAuthorizationRequest(db, granted, new Date());
  return tokenError(
    "invalid_grant",
    "The authorization code was already used, or its credential offer is no longer pending.",
  );
}

const invalidCode = () =>
  tokenError("invalid_grant", "The authorization code is invalid, expired or already used.");

/**
 * Authorization code grant at the token endpoint (RFC 6749 §4.1.3): the code is single use and
 * short-lived, and must come from the client it was issued to, with the redirect URI it was asked with
 * and the PKCE verifier of its challenge (RFC 7636 §4.6). A code bound to a DPoP key at the pushed
 * request is redeemed only with a proof by that key (RFC 9449 §10), and one pushed by an attested wallet
 * only by the same wallet instance (its attestation's key; RFC 6749 §4.1.3: a client that authenticated
 * authenticates again). A code used twice revokes the access token the first use obtained (RFC 6749
 * §4.1.2), once the second use has shown the PKCE verifier: a code leaked after use cannot revoke.
 * Redeeming it redeems the offer: one statement spends the code, marks the transaction redeemed (while
 * still pending) and stores the access token.
 */
export async function exchangeAuthorizationCode(
  deps: Pick<AppDeps, "config" | "caches">,
  db: UnitOfWork,
  issuerId: string,
  request: TAuthorizationCodeTokenRequest,
  client: { dpopJkt: string | null; attestedJkt: string | null },
) {
  const { dpopJkt } = client;
  const granted = await authorizationRequestRepository.grantedCode(db, hashSecret(request.code));
  const now = new Date();
  if (!granted || granted.issuerId !== issuerId) throw invalidCode();
  if (!request.client_id) throw tokenError("invalid_request", "client_id is required for a public client.");
  if (request.client_id !== granted.clientId) {
    throw tokenError("invalid_grant", "The authorization code was issued to another client.");
  }
  if (!request.redirect_uri) {
    throw tokenError(
      "invalid_request",
      "redirect_uri is required: it was part of the authorization request.",
    );
  }
  if (request.redirect_uri !== granted.redirectUri) {
    throw tokenError("invalid_grant", "redirect_uri is not the one of the authorization request.");
  }
  if (!request.code_verifier) throw tokenError("invalid_request", "code_verifier (PKCE) is required.");
  if (!pkceVerifierMatches(request.code_verifier, granted.codeChallenge)) {
    throw tokenError("invalid_grant", "code_verifier does not match the code_challenge.");
  }
  if (granted.codeUsedAt) throw await revokeTokensOf(db, granted);
  if (granted.codeExpiresAt.getTime() <= now.getTime()) throw invalidCode();
  if (granted.clientAttestationJkt && client.attestedJkt !== granted.clientAttestationJkt) {
    throw tokenError(
      "invalid_client",
      "The authorization request was made by an attested wallet: authenticate with the same wallet attestation key.",
    );
  }
  if (granted.dpopJkt && dpopJkt !== granted.dpopJkt) {
    throw tokenError(
      "invalid_dpop_proof",
      "The authorization request was bound to a DPoP key: send a DPoP proof by that key.",
    );
  }

  const accessToken = randomToken(32);
  const expiresIn = deps.config.issuance.accessTokenLifetimeSeconds;
  const row = await redemptionRepository.redeemAuthorizationCode(db, deps.caches, {
    requestId: granted.id,
    transactionId: granted.transactionId,
    now,
    token: { hash: hashSecret(accessToken), expiresAt: new Date(now.getTime() + expiresIn * 1000), dpopJkt },
  });
  // Not redeemed: a concurrent exchange of the same code won (its token goes, as for any second use),
  // or the offer is gone (no token came from this code, so there is nothing to revoke).
  if (!row) throw await revokeTokensOf(db, granted);
  return {
    ...tokenResponse(
      accessToken,
      expiresIn,
      row.configurationIdentifier,
      granted.authorizationDetails ?? undefined,
      dpopJkt,
    ),
    // RFC 6749 §5.1: the scope granted, which may be less than the scope asked for.
    ...(granted.scope ? { scope: granted.scope } : {}),
  };
}
