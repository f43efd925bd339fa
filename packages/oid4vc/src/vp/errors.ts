/**
 * OAuth-style error raised by the OpenID4VP protocol functions.
 * `oauthError` is the wire code (OpenID4VP §8.5 / RFC 6749 §4.1.2.1); `status` the HTTP status a
 * wallet-facing endpoint should answer with.
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

export class VpError extends Error {
  override readonly name = "VpError";
  readonly oauthError: VpOAuthErrorCode;
  readonly status: number;

  constructor(oauthError: VpOAuthErrorCode, message: string, options?: { status?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.oauthError = oauthError;
    this.status = options?.status ?? (oauthError === "server_error" ? 500 : 400);
  }

  /** The OAuth error body (`{ error, error_description }`). */
  toOAuthBody(): { error: VpOAuthErrorCode; error_description: string } {
    return { error: this.oauthError, error_description: this.message };
  }
}

export function isVpError(value: unknown): value is VpError {
  return value instanceof VpError;
}
