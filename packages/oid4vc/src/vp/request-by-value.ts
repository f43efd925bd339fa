import type { AuthorizationRequestPayload } from "./request-object";

/** The client identifier prefix of a verifier identified by its redirect (response) URI (OpenID4VP §5.9.3). */
export const REDIRECT_URI_PREFIX = "redirect_uri:";

/**
 * The `redirect_uri:` client_id of a verifier answered by `direct_post` at `responseUri` (OpenID4VP
 * §5.9.3: for `direct_post` the client identifier is the Response URI).
 */
export function redirectUriClientId(responseUri: string): string {
  return `${REDIRECT_URI_PREFIX}${responseUri}`;
}

/**
 * An authorization request link with every parameter by value (OpenID4VP §5, no `request` or
 * `request_uri`): the unsigned request of the `redirect_uri` prefix (§5.9.3: such requests cannot be
 * signed). Objects and arrays (`dcql_query`, `client_metadata`, `transaction_data`, `verifier_info`)
 * are JSON-encoded; the request object's JWT claims (`aud`, `iat`, `exp`) have no place here.
 */
export function authorizationRequestLinkByValue(
  payload: AuthorizationRequestPayload,
  scheme = "openid4vp://",
): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(payload)) {
    if (value === undefined || name === "aud" || name === "iat" || name === "exp") continue;
    params.set(name, typeof value === "string" ? value : JSON.stringify(value));
  }
  if (scheme.endsWith("://")) return `${scheme}?${params.toString()}`;
  const url = new URL(scheme);
  for (const [k, v] of params) url.searchParams.set(k, v);
  return url.toString();
}

/**
 * An authorization request link carrying the signed request object by value (RFC 9101 §5.1 `request`,
 * OpenID4VP §5): `client_id` and `request`, no `request_uri`.
 */
export function authorizationRequestLinkWithRequest(input: {
  clientId: string;
  request: string;
  scheme?: string;
}): string {
  const params = new URLSearchParams({ client_id: input.clientId, request: input.request });
  const scheme = input.scheme ?? "openid4vp://";
  if (scheme.endsWith("://")) return `${scheme}?${params.toString()}`;
  const url = new URL(scheme);
  for (const [k, v] of params) url.searchParams.set(k, v);
  return url.toString();
}
