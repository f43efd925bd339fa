import {
  InvalidAuthorizationRequestError,
  type Jwk,
  parseRequestUriPostBody,
  publicJwk,
  signRequestObject,
  VpError,
} from "@cred/oid4vc";
import type { AppDeps } from "../shared/context";
import type { TPolicyRules } from "../verification-policies";
import { createdSessions } from "./created-sessions";
import { walletDcqlQueryFor } from "./policy-query";
import { requestIsByValue } from "./request-by-value";
import { scopeOfRow, settleExpiry } from "./session-lifecycle";
import { sessionRequestPayload, sessionRequestSourceOf } from "./session-request";
import { assertVerifierTenantActive } from "./suspended-verifier";
import { verificationRepository } from "./verification-repository";
import { openEncryptionKey, responseUriOf } from "./verification-session-dto";
import { getVerifierIdentity, identityServesClientId, requestObjectSigner } from "./verifier-identity";

/**
 * The request_uri endpoint (OpenID4VP §5.10): the signed request object of a pending session, built
 * from the session's policy snapshot, `typ: oauth-authz-req+jwt`, `x5c` of the tenant's verifier
 * certificate. With a POST form (`request_uri_method=post`), `wallet_nonce` is echoed in the object and
 * `wallet_metadata.issuer` becomes its `aud`; a malformed `wallet_nonce` or a `wallet_metadata` that is
 * not a JSON object → 400 `invalid_request` (the route refuses a body that is not a form).
 * Unknown, decided or expired sessions → 404 `invalid_request` (the wallet aborts on any HTTP error);
 * a session whose client_id the current certificate no longer serves (replaced by an upload) → 400
 * `invalid_request`. Returns the signed request object (compact JWS).
 */
export async function serveRequestObject(
  deps: AppDeps,
  state: string,
  form?: URLSearchParams,
): Promise<string> {
  let walletNonce: string | undefined;
  let walletIssuer: string | undefined;
  if (form) {
    try {
      ({ walletNonce, walletIssuer } = parseRequestUriPostBody(form));
    } catch (error) {
      if (error instanceof InvalidAuthorizationRequestError)
        throw new VpError("invalid_request", error.message);
      throw error;
    }
  }
  const found =
    createdSessions.peek(deps.caches, state) ??
    (await verificationRepository.findSessionByState(deps.database.root, state));
  const row = found ? await settleExpiry(deps, deps.database.root, found) : null;
  if (row?.status !== "pending") {
    throw new VpError("invalid_request", "unknown, expired or completed request", { status: 404 });
  }
  if (row.dcApi) {
    // Its request went to the page for navigator.credentials.get; it has no request_uri flow.
    throw new VpError("invalid_request", "this request is answered through the Digital Credentials API", {
      status: 404,
    });
  }
  if (requestIsByValue(row)) {
    // redirect_uri (OpenID4VP §5.9.3): the unsigned request is all in the authorization request link.
    throw new VpError("invalid_request", "this request is passed by value in the authorization request", {
      status: 404,
    });
  }
  const scope = scopeOfRow(row);
  await assertVerifierTenantActive(deps, scope.tenantId);
  const identity = await getVerifierIdentity(deps, scope);
  if (!identityServesClientId(identity, row.clientId, deps.config)) {
    // The certificate was replaced after the session was created and no longer matches its client_id
    // (always so for x509_hash): a wallet would reject the object, so say why instead.
    throw new VpError(
      "invalid_request",
      "the verifier certificate was replaced after this request was created; ask the verifier to start a new verification",
    );
  }
  let encryptionJwk: Jwk | undefined;
  if (row.responseMode === "direct_post.jwt" && row.encryptionKeyCipher) {
    encryptionJwk = publicJwk(
      openEncryptionKey(deps.secretBox, { id: row.id, encryptionKeyCipher: row.encryptionKeyCipher }),
    );
  }
  const payload = sessionRequestPayload(sessionRequestSourceOf(row, responseUriOf(deps.config, row.state)), {
    dcqlQuery: await walletDcqlQueryFor(deps, scope, row.rules as TPolicyRules),
    encryptionJwk,
    iat: Math.floor(Date.now() / 1000),
    ...(walletNonce !== undefined ? { walletNonce } : {}),
    ...(walletIssuer !== undefined ? { walletIssuer } : {}),
  });
  return signRequestObject(payload, requestObjectSigner(identity, row.clientId));
}
