import {
  ATTEST_JWT_CLIENT_AUTH,
  ATTEST_JWT_CLIENT_AUTH_DPOP,
  CLIENT_ATTESTATION_ALGS,
} from "./client-attestation";
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
 * in the response (RFC 9207); public clients (`none`). With `clientAttestation`, wallets may (or, when
 * required, must) authenticate with a wallet attestation (attest_jwt_client_auth, with its own PoP or
 * with the DPoP proof as PoP); a required one also ends anonymous pre-authorized access. Its
 * `challengeEndpoint` is announced as `challenge_endpoint`: a client that sees one must put a challenge
 * from it in every PoP (draft-ietf-oauth-attestation-based-client-auth §8.1).
 */
export function buildAuthorizationServerMetadata(input: {
  issuer: string;
  tokenEndpoint: string;
  authorizationEndpoint?: string;
  pushedAuthorizationRequestEndpoint?: string;
  dpopSigningAlgValuesSupported?: string[];
  clientAttestation?: { required: boolean; challengeEndpoint?: string };
}): AuthorizationServerMetadata {
  const attestation = input.clientAttestation;
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
    "pre-authorized_grant_anonymous_access_supported": !attestation?.required,
    token_endpoint_auth_methods_supported: attestation
      ? [ATTEST_JWT_CLIENT_AUTH, ATTEST_JWT_CLIENT_AUTH_DPOP, ...(attestation.required ? [] : ["none"])]
      : ["none"],
    ...(attestation
      ? {
          client_attestation_signing_alg_values_supported: [...CLIENT_ATTESTATION_ALGS],
          client_attestation_pop_signing_alg_values_supported: [...CLIENT_ATTESTATION_ALGS],
          ...(attestation.challengeEndpoint ? { challenge_endpoint: attestation.challengeEndpoint } : {}),
        }
      : {}),
    ...(codeFlow
      ? {
          response_types_supported: ["code"],
          response_modes_supported: ["query"],
          code_challenge_methods_supported: ["S256"],
          authorization_details_types_supported: ["openid_credential"],
          authorization_response_iss_parameter_supported: true,
        }
      : {}),
  };
  if (input.dpopSigningAlgValuesSupported?.length) {
    metadata.dpop_signing_alg_values_supported = [...input.dpopSigningAlgValuesSupported];
  }
  return metadata;
}
