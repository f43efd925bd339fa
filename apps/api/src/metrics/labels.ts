import { appRouter } from "@cred/core";

/**
 * Label values the metrics may carry: fixed sets, so a series count stays bounded whatever the callers
 * send. Nothing here is an id, a tenant or a URL: REST and console calls are labelled by their
 * procedure's operation id or key, wallet requests by the endpoint's name below.
 */

/** Wallet endpoints by Fastify route pattern (apps/api/src/wallet, one file each). */
export const WALLET_ENDPOINTS: Readonly<Record<string, string>> = {
  "/.well-known/openid-credential-issuer/issuers/:issuerId": "credential_issuer_metadata",
  "/issuers/:issuerId/.well-known/openid-credential-issuer": "credential_issuer_metadata",
  "/.well-known/oauth-authorization-server/issuers/:issuerId": "authorization_server_metadata",
  "/issuers/:issuerId/.well-known/oauth-authorization-server": "authorization_server_metadata",
  "/.well-known/jwt-vc-issuer/issuers/:issuerId": "jwt_vc_issuer_metadata",
  "/issuers/:issuerId/credentials/:identifier": "type_metadata",
  "/issuers/:issuerId/offers/:handle": "credential_offer",
  "/issuers/:issuerId/token": "token",
  "/issuers/:issuerId/par": "pushed_authorization_request",
  "/issuers/:issuerId/authorize": "authorize",
  "/issuers/:issuerId/authorize/return": "authorize_return",
  "/issuers/:issuerId/challenge": "attestation_challenge",
  "/issuers/:issuerId/nonce": "nonce",
  "/issuers/:issuerId/credential": "credential",
  "/issuers/:issuerId/deferred-credential": "deferred_credential",
  "/issuers/:issuerId/notification": "notification",
  "/issuers/:issuerId/status-lists/:listId": "status_list",
  "/verifier/requests/:handle": "request_object",
  "/verifier/responses/:handle": "direct_post",
  "/verifier/:tenantId/:environment/did.json": "verifier_did_document",
};

/**
 * OAuth and OpenID error codes a wallet endpoint may answer with (RFC 6749 §5.2 and §4.1.2.1, RFC 6750
 * §3.1, RFC 9449, OAuth attestation-based client authentication, OpenID4VCI 1.0 §8.3.1, §9.3, §11.3,
 * OpenID4VP 1.0 §8.5); any other code is counted as `other`.
 */
export const OAUTH_ERROR_CODES = new Set([
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "unsupported_response_type",
  "invalid_scope",
  "access_denied",
  "server_error",
  "temporarily_unavailable",
  "invalid_token",
  "insufficient_scope",
  "invalid_dpop_proof",
  "use_dpop_nonce",
  "use_attestation_challenge",
  "invalid_client_attestation",
  "invalid_authorization_details",
  "invalid_target",
  "authorization_pending",
  "slow_down",
  "expired_token",
  "invalid_credential_request",
  "unknown_credential_configuration",
  "unknown_credential_identifier",
  "invalid_proof",
  "invalid_nonce",
  "invalid_encryption_parameters",
  "credential_request_denied",
  "invalid_transaction_id",
  "issuance_pending",
  "invalid_notification_id",
  "invalid_notification_request",
  "vp_formats_not_supported",
  "invalid_request_uri_method",
  "invalid_transaction_data",
  "wallet_unavailable",
]);

export const oauthErrorLabel = (code: string) => (OAUTH_ERROR_CODES.has(code) ? code : "other");

const PROCEDURES = new Set(Object.keys(appRouter._def.procedures as object));

/**
 * A console tRPC call's label: the procedure key when the path names one, `batch` for a batch of
 * several (the path lists them), `unknown` for anything else the caller sent.
 */
export function consoleProcedureLabel(path: string): string {
  if (path.includes(",")) return "batch";
  return PROCEDURES.has(path) ? path : "unknown";
}

/** `2xx` … `5xx` for a status code. */
export const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;
