import { OAuthError } from "../jose/oauth-error";

/** Token endpoint error codes (RFC 6749 §5.2, OpenID4VCI §6.3, RFC 9396 §5). */
export type TokenErrorCode =
  | "invalid_request"
  | "invalid_grant"
  | "invalid_client"
  | "unsupported_grant_type"
  | "invalid_authorization_details"
  | "invalid_dpop_proof"
  | "use_dpop_nonce";

/** Credential endpoint error codes (OpenID4VCI §8.3.1.2). */
export type CredentialErrorCode =
  | "invalid_credential_request"
  | "unknown_credential_configuration"
  | "unknown_credential_identifier"
  | "invalid_proof"
  | "invalid_nonce"
  | "invalid_encryption_parameters"
  | "credential_request_denied"
  /** Deferred Credential Endpoint (§9.3): the transaction_id is unknown or was already used. */
  | "invalid_transaction_id";

/** Notification endpoint error codes (OpenID4VCI §11.3). */
export type NotificationErrorCode = "invalid_notification_id" | "invalid_notification_request";

export function tokenError(
  code: TokenErrorCode,
  description: string,
  status = code === "invalid_client" ? 401 : 400,
) {
  return new OAuthError(code, description, { status });
}

export function credentialError(code: CredentialErrorCode, description: string) {
  return new OAuthError(code, description, { status: 400 });
}

export function notificationError(code: NotificationErrorCode, description: string) {
  return new OAuthError(code, description, { status: 400 });
}
