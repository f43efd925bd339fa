import { AUTHORIZATION_CODE_GRANT, PRE_AUTHORIZED_CODE_GRANT } from "./credential-offer";

export interface AuthorizationServerMetadata {
  issuer: string;
  token_endpoint: string;
  grant_types_supported: string[];
  "pre-authorized_grant_anonymous_access_supported": boolean;
  token_endpoint_auth_methods_supported?: string[];
  dpop_signing_alg_values_supported?: string[];
  [name: string]: unknown;
}

/**
 * RFC 8414 metadata (OpenID4VCI §12.3). Anonymous pre-authorized token requests are allowed. With
 * `authorizationEndpoint` and `pushedAuthorizationRequestEndpoint`, the authorization code grant is
 * offered as FAPI 2.0 and HAIP have it: pushed requests only (RFC 9126), PKCE S256 (RFC 7636), `iss`
 * in the response (RFC 9207); public clients (`none`).
 */
export function buildAuthorizationServerMetadata(input: {
  issuer: string;
  tokenEndpoint: string;
  authorizationEndpoint?: string;
  pushedAuthorizationRequestEndpoint?: string;
  dpopSigningAlgValuesSupported?: string[];
}): AuthorizationServerMetadata {
  const codeFlow = input.authorizationEndpoint && input.pushedAuthorizationRequestEndpoint;
  const metadata: AuthorizationServerMetadata = {
    issuer: input.issuer,
    ...(codeFlow
      ? {
          authorization_endpoint: input.authorizationEndpoint,
          pushed_authorization_request_endpoint: input.pushedAuthorizationRequestEndpoint,
          require_pushed_authorization_requests: true,
        }
      : {}),
    token_endpoint: input.tokenEndpoint,
    grant_types_supported: codeFlow
      ? [AUTHORIZATION_CODE_GRANT, PRE_AUTHORIZED_CODE_GRANT]
      : [PRE_AUTHORIZED_CODE_GRANT],
    "pre-authorized_grant_anonymous_access_supported": true,
    token_endpoint_auth_methods_supported: ["none"],
    ...(codeFlow
      ? {
          response_types_supported: ["code"],
          response_modes_supported: ["query"],
          code_challenge_methods_supported: ["S256"],
          authorization_response_iss_parameter_supported: true,
        }
      : {}),
  };
  if (input.dpopSigningAlgValuesSupported?.length) {
    metadata.dpop_signing_alg_values_supported = [...input.dpopSigningAlgValuesSupported];
  }
  return metadata;
}
