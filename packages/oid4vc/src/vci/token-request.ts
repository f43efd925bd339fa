import { z } from "zod";
import { PRE_AUTHORIZED_CODE_GRANT } from "./credential-offer";
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

export type FormParams = URLSearchParams | Record<string, string | string[] | undefined>;

const KNOWN = ["grant_type", "pre-authorized_code", "tx_code", "client_id", "authorization_details"] as const;

/**
 * Parses an `application/x-www-form-urlencoded` token request. Unknown parameters are ignored (RFC
 * 6749 §3.2); repeated ones are refused (§3.1). Throws `OAuthError`: `invalid_request`,
 * `unsupported_grant_type` or `invalid_authorization_details`. Checking the code and `tx_code`
 * against the offer (`invalid_grant`) is the caller's job.
 */
export function parseTokenRequest(form: FormParams): TPreAuthorizedTokenRequest {
  const get = (name: string): string | undefined => {
    const values = form instanceof URLSearchParams ? form.getAll(name) : [form[name] ?? []].flat();
    if (values.length > 1) throw tokenError("invalid_request", `parameter ${name} is repeated`);
    return values[0];
  };
  const raw: Record<string, string | undefined> = {};
  for (const name of KNOWN) raw[name] = get(name);

  if (!raw.grant_type) throw tokenError("invalid_request", "grant_type is required");
  if (raw.grant_type !== PRE_AUTHORIZED_CODE_GRANT) {
    throw tokenError("unsupported_grant_type", "only the pre-authorized code grant is supported");
  }
  if (!raw["pre-authorized_code"]) throw tokenError("invalid_request", "pre-authorized_code is required");
  if (raw.tx_code === "") throw tokenError("invalid_request", "tx_code must not be empty");

  let authorizationDetails: unknown;
  if (raw.authorization_details !== undefined) {
    try {
      authorizationDetails = JSON.parse(raw.authorization_details);
    } catch {
      throw tokenError("invalid_authorization_details", "authorization_details is not valid JSON");
    }
    const parsed = ZAuthorizationDetails.safeParse(authorizationDetails);
    if (!parsed.success) {
      throw tokenError(
        "invalid_authorization_details",
        "authorization_details must be openid_credential entries",
      );
    }
    authorizationDetails = parsed.data;
  }
  const result = ZPreAuthorizedTokenRequest.safeParse({
    grant_type: raw.grant_type,
    "pre-authorized_code": raw["pre-authorized_code"],
    tx_code: raw.tx_code,
    client_id: raw.client_id || undefined,
    authorization_details: authorizationDetails,
  });
  if (!result.success) throw tokenError("invalid_request", "malformed token request");
  return result.data;
}
