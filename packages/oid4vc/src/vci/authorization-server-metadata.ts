import { PRE_AUTHORIZED_CODE_GRANT } from "./credential-offer";

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
 * RFC 8414 metadata for a pre-authorized-code-only authorization server (OpenID4VCI §12.3):
 * anonymous token requests are allowed, `response_types_supported` is omitted (no authorization endpoint).
 */
export function buildAuthorizationServerMetadata(input: {
  issuer: string;
  tokenEndpoint: string;
  dpopSigningAlgValuesSupported?: string[];
}): AuthorizationServerMetadata {
  const metadata: AuthorizationServerMetadata = {
    issuer: input.issuer,
    token_endpoint: input.tokenEndpoint,
    grant_types_supported: [PRE_AUTHORIZED_CODE_GRANT],
    "pre-authorized_grant_anonymous_access_supported": true,
    token_endpoint_auth_methods_supported: ["none"],
  };
  if (input.dpopSigningAlgValuesSupported?.length) {
    metadata.dpop_signing_alg_values_supported = [...input.dpopSigningAlgValuesSupported];
  }
  return metadata;
}
