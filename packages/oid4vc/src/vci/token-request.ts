import { z } from "zod";
import { AUTHORIZATION_CODE_GRANT, PRE_AUTHORIZED_CODE_GRANT } from "./credential-offer";
import { tokenError } from "./errors";

export const ZAuthorizationDetail = z.looseObject({
  type: z.literal("openid_credential"),
  credential_configuration_id: z.string().min(1),
  locations: z.array(z.string()).optional(),
});
export type TAuthorizationDetail = z.infer<typeof ZAuthorizationDetail>;
const ZAuthorizationDetails = z.array(ZAuthorizationDetail).min(1);

/** Token Request for the pre-authorized code grant (OpenID4VCI §6.1). */
export const ZPreAuthorizedTokenRequest = z.object({
  grant_type: z.literal(PRE_AUTHORIZED_CODE_GRANT),
  "pre-authorized_code": z.string().min(1),
  tx_code: z.string().min(1).optional(),
  client_id: z.string().min(1).optional(),
  authorization_details: ZAuthorizationDetails.optional(),
});
export type TPreAuthorizedTokenRequest = z.infer<typeof ZPreAuthorizedTokenRequest>;

/** Token Request for the authorization code grant (RFC 6749 §4.1.3, RFC 7636 §4.5). */
export const ZAuthorizationCodeTokenRequest = z.object({
  grant_type: z.literal(AUTHORIZATION_CODE_GRANT),
  code: z.string().min(1),
  redirect_uri: z.string().min(1).optional(),
  code_verifier: z.string().min(1).optional(),
  client_id: z.string().min(1).optional(),
});
export type TAuthorizationCodeTokenRequest = z.infer<typeof ZAuthorizationCodeTokenRequest>;

export type TTokenRequest = TPreAuthorizedTokenRequest | TAuthorizationCodeTokenRequest;

export type FormParams = URLSearchParams | Record<string, string | string[] | undefined>;

/**
 * A reader of form parameters that refuses repeated ones (RFC 6749 §3.1) with the endpoint's
 * `invalid_request` error (`fail`).
 */
export function formReader(form: FormParams, fail: (description: string) => Error) {
  return (name: string): string | undefined => {
    const values = form instanceof URLSearchParams ? form.getAll(name) : [form[name] ?? []].flat();
    if (values.length > 1) throw fail(`parameter ${name} is repeated`);
    return values[0];
  };
}

/** `authorization_details` (RFC 9396) as sent in a form: JSON of openid_credential entries. */
export function parseAuthorizationDetails(
  raw: string,
  fail: (description: string) => Error,
): TAuthorizationDetail[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw fail("authorization_details is not valid JSON");
  }
  const result = ZAuthorizationDetails.safeParse(parsed);
  if (!result.success) throw fail("authorization_details must be openid_credential entries");
  return result.data;
}

/**
 * Parses an `application/x-www-form-urlencoded` token request of either grant. Unknown parameters are
 * ignored (RFC 6749 §3.2); repeated ones are refused (§3.1). Throws `OAuthError`: `invalid_request`,
 * `unsupported_grant_type` or `invalid_authorization_details`. Checking the code, `tx_code`, PKCE and
 * the redirect URI against what was granted (`invalid_grant`) is the caller's job.
 */
export function parseTokenRequest(form: FormParams): TTokenRequest {
  const get = formReader(form, (description) => tokenError("invalid_request", description));
  const grantType = get("grant_type");
  if (!grantType) throw tokenError("invalid_request", "grant_type is required");
  if (grantType === AUTHORIZATION_CODE_GRANT) return parseAuthorizationCodeRequest(get);
  if (grantType !== PRE_AUTHORIZED_CODE_GRANT) {
    throw tokenError(
      "unsupported_grant_type",
      "only the pre-authorized code and authorization code grants are supported",
    );
  }
  const code = get("pre-authorized_code");
  const txCode = get("tx_code");
  const details = get("authorization_details");
  if (!code) throw tokenError("invalid_request", "pre-authorized_code is required");
  if (txCode === "") throw tokenError("invalid_request", "tx_code must not be empty");
  const result = ZPreAuthorizedTokenRequest.safeParse({
    grant_type: grantType,
    "pre-authorized_code": code,
    tx_code: txCode,
    client_id: get("client_id") || undefined,
    authorization_details:
      details === undefined
        ? undefined
        : parseAuthorizationDetails(details, (d) => tokenError("invalid_authorization_details", d)),
  });
  if (!result.success) throw tokenError("invalid_request", "malformed token request");
  return result.data;
}

function parseAuthorizationCodeRequest(get: (name: string) => string | undefined) {
  const code = get("code");
  if (!code) throw tokenError("invalid_request", "code is required");
  const result = ZAuthorizationCodeTokenRequest.safeParse({
    grant_type: AUTHORIZATION_CODE_GRANT,
    code,
    redirect_uri: get("redirect_uri") || undefined,
    code_verifier: get("code_verifier") || undefined,
    client_id: get("client_id") || undefined,
  });
  if (!result.success) throw tokenError("invalid_request", "malformed token request");
  return result.data;
}
