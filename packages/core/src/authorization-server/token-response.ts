import type { TAuthorizationDetail } from "@cred/oid4vc";

/**
 * The token response; when the wallet sent `authorization_details`, each entry comes back with the
 * credential identifiers it may request (§6.2), here the offered configuration's identifier.
 */
export function tokenResponse(
  accessToken: string,
  expiresIn: number,
  configurationIdentifier: string,
  details: TAuthorizationDetail[] | undefined,
  dpopJkt: string | null,
) {
  return {
    access_token: accessToken,
    token_type: dpopJkt ? "DPoP" : "Bearer",
    expires_in: expiresIn,
    ...(details
      ? {
          authorization_details: details.map((detail) => ({
            ...detail,
            credential_identifiers: [configurationIdentifier],
          })),
        }
      : {}),
  };
}
