import { OAuthError } from "../jose/oauth-error";

/**
 * OAuth error codes of OpenID4VP §8.5 (plus RFC 6749's), used on the wallet-facing endpoints.
 */
export type VpOAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "access_denied"
  | "invalid_scope"
  | "vp_formats_not_supported"
  | "invalid_request_uri_method"
  | "invalid_transaction_data"
  | "wallet_unavailable"
  | "server_error";

/**
 * An `OAuthError` raised by the OpenID4VP functions: `error` / `oauthError` is the wire code, `status` the
 * HTTP status (400 unless `server_error`), `toJSON()` the `{ error, error_description }` body.
 */
export class VpError extends OAuthError {
  readonly oauthError: VpOAuthErrorCode;

  constructor(oauthError: VpOAuthErrorCode, message: string, options?: { status?: number; cause?: unknown }) {
    super(oauthError, message, {
      status: options?.status ?? (oauthError === "server_error" ? 500 : 400),
      ...(options?.cause === undefined ? {} : { cause: options.cause }),
    });
    this.name = "VpError";
    this.oauthError = oauthError;
  }
}

export function isVpError(value: unknown): value is VpError {
  return value instanceof VpError;
}
