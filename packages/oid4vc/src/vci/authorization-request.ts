import { createHash } from "node:crypto";
import { OAuthError } from "../jose/oauth-error";
import { isAcceptableRedirectUri } from "./redirect-uri";
import {
  type FormParams,
  formReader,
  parseAuthorizationDetails,
  type TAuthorizationDetail,
} from "./token-request";

/** RFC 9126 §2.2: the `request_uri` a pushed authorization request answers with starts with this. */
export const PAR_REQUEST_URI_PREFIX = "urn:ietf:params:oauth:request_uri:";

/** Pushed authorization request error codes (RFC 9126 §2.3, RFC 6749 §4.1.2.1, RFC 9396, RFC 8707). */
export type AuthorizationErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "unsupported_response_type"
  | "invalid_scope"
  | "invalid_authorization_details"
  | "invalid_target"
  | "invalid_dpop_proof"
  | "access_denied";

export function authorizationError(code: AuthorizationErrorCode, description: string) {
  return new OAuthError(code, description, { status: code === "invalid_client" ? 401 : 400 });
}

/** What a wallet pushes (RFC 9126) to start the authorization code flow of an offer (OpenID4VCI §5.1). */
export interface TPushedAuthorizationRequest {
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  /** OpenID4VCI §5.1.3: ties the request to the offer; absent in a wallet-initiated request. */
  issuer_state?: string;
  state?: string;
  scope?: string[];
  authorization_details?: TAuthorizationDetail[];
  resource?: string;
  dpop_jkt?: string;
}

/** RFC 7636 §4.1 / §4.2: the verifier's and the S256 challenge's alphabet and length. */
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;
const MAX_STATE_LENGTH = 1_000;
const MAX_CLIENT_ID_LENGTH = 1_000;
/** RFC 7638 SHA-256 thumbprint, base64url. */
const JKT = /^[A-Za-z0-9_-]{43}$/;
/**
 * Parses a pushed authorization request (RFC 9126 §2.1) for OpenID4VCI's authorization code flow:
 * `response_type=code`, a public `client_id`, a `redirect_uri`, PKCE with S256 (FAPI 2.0 / HAIP:
 * `plain` is refused), and the offer's `issuer_state` when the flow starts from an offer. Unknown
 * parameters are ignored, repeated ones refused. Whether the scope, details and resource name what was
 * offered (or what the issuer has), and whether a request without `issuer_state` is taken, is the
 * caller's check.
 */
export function parsePushedAuthorizationRequest(form: FormParams): TPushedAuthorizationRequest {
  const fail = (description: string) => authorizationError("invalid_request", description);
  const get = formReader(form, fail);
  if (get("request") !== undefined) throw fail("request objects are not supported; send plain parameters");
  if (get("request_uri") !== undefined) throw fail("request_uri is not allowed in a pushed request");
  const responseType = get("response_type");
  if (!responseType) throw fail("response_type is required");
  if (responseType !== "code") {
    throw authorizationError("unsupported_response_type", "only response_type=code is supported");
  }
  const clientId = get("client_id");
  if (!clientId) throw fail("client_id is required");
  if (clientId.length > MAX_CLIENT_ID_LENGTH) throw fail("client_id is too long");
  const redirectUri = get("redirect_uri");
  if (!redirectUri) throw fail("redirect_uri is required");
  if (!isAcceptableRedirectUri(redirectUri)) {
    throw fail(
      "redirect_uri must be an absolute URI without fragment or response parameters: https, a private-use scheme, or http to a loopback address",
    );
  }
  const challenge = get("code_challenge");
  if (!challenge) throw fail("PKCE is required: send code_challenge with code_challenge_method=S256");
  if (get("code_challenge_method") !== "S256") throw fail("code_challenge_method must be S256");
  if (!PKCE_VALUE.test(challenge)) throw fail("code_challenge is not an S256 challenge");
  const issuerState = get("issuer_state");
  const state = get("state");
  if (state !== undefined && state.length > MAX_STATE_LENGTH) throw fail("state is too long");
  const scope = get("scope");
  const details = get("authorization_details");
  const resource = singleResource(form);
  const dpopJkt = get("dpop_jkt");
  if (dpopJkt !== undefined && !JKT.test(dpopJkt)) throw fail("dpop_jkt must be a JWK SHA-256 thumbprint");
  return {
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    ...(issuerState ? { issuer_state: issuerState } : {}),
    ...(state ? { state } : {}),
    ...(scope ? { scope: scope.split(" ").filter(Boolean) } : {}),
    ...(details === undefined
      ? {}
      : {
          authorization_details: parseAuthorizationDetails(details, (d) =>
            authorizationError("invalid_authorization_details", d),
          ),
        }),
    ...(resource ? { resource } : {}),
    ...(dpopJkt ? { dpop_jkt: dpopJkt } : {}),
  };
}

/** RFC 8707: this server is one resource, so several `resource` values cannot all be it (`invalid_target`). */
function singleResource(form: FormParams): string | undefined {
  const values = form instanceof URLSearchParams ? form.getAll("resource") : [form.resource ?? []].flat();
  if (values.length > 1)
    throw authorizationError("invalid_target", "name one resource: this credential issuer");
  return values[0];
}

/** RFC 7636 §4.6: whether a code verifier answers an S256 challenge. */
export function pkceVerifierMatches(verifier: string, challenge: string): boolean {
  return PKCE_VALUE.test(verifier) && pkceChallengeOf(verifier) === challenge;
}

/** RFC 7636 §4.2: the S256 challenge of a verifier (wallet side and tests). */
export function pkceChallengeOf(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/**
 * The authorization response (RFC 6749 §4.1.2, RFC 9207 `iss`): the redirect URI with the parameters
 * added to its query, keeping any it already has.
 */
export function authorizationResponseUrl(redirectUri: string, params: Record<string, string | undefined>) {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.append(name, value);
  }
  return url.toString();
}
