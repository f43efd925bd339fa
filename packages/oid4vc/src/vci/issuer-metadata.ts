import { type Es256SigningKey, type JwsHeader, signEs256Jwt } from "../jose/jws";
import type { Jwk } from "../jose/key-input";
import type { ClaimPath } from "../sd-jwt-vc/claim-path";
import { type CredentialEncryptionMetadata, credentialEncryptionMetadata } from "./credential-encryption";

/** A display entry (§12.2.4): `name`, `locale`, `logo`, colours, ... passed through as given. */
export type DisplayEntry = Record<string, unknown> & { name?: string; locale?: string };

export interface CredentialConfigurationInput {
  id: string;
  vct: string;
  /** OAuth scope for the configuration; HAIP requires one on every configuration. */
  scope: string;
  display?: DisplayEntry[];
  claims?: Array<{ path: ClaimPath; display?: DisplayEntry[]; mandatory?: boolean }>;
  /** Whether the credential is bound to a holder key (`cnf.jwk`), which requires a `jwt` proof. */
  holderBinding: boolean;
  /**
   * Key attestations (Appendix D) are read: the `attestation` proof type is offered too, and with
   * `required` both proof types announce `key_attestations_required`.
   */
  keyAttestations?: { required: { key_storage?: string[]; user_authentication?: string[] } | null };
}

type ProofTypeMetadata = {
  proof_signing_alg_values_supported: string[];
  key_attestations_required?: { key_storage?: string[]; user_authentication?: string[] };
};

export interface BuildCredentialIssuerMetadataInput {
  credentialIssuer: string;
  credentialEndpoint: string;
  nonceEndpoint?: string;
  notificationEndpoint?: string;
  deferredCredentialEndpoint?: string;
  /** Authorization servers; omit when the credential issuer is its own AS. */
  authorizationServers?: string[];
  /** Maximum number of proofs per credential request; advertised only when >= 2 (§12.2.4). */
  batchSize?: number;
  display?: DisplayEntry[];
  configurations: CredentialConfigurationInput[];
  /** Encrypted credential requests and responses (§10) to this public key, optional or required. */
  credentialEncryption?: { publicJwk: Jwk; required: boolean };
}

export interface CredentialConfigurationSupported {
  format: "dc+sd-jwt";
  vct: string;
  scope: string;
  cryptographic_binding_methods_supported?: string[];
  credential_signing_alg_values_supported: string[];
  proof_types_supported?: { jwt: ProofTypeMetadata; attestation?: ProofTypeMetadata };
  credential_metadata?: {
    display?: DisplayEntry[];
    claims?: Array<{ path: ClaimPath; display?: DisplayEntry[]; mandatory?: boolean }>;
  };
}

export interface CredentialIssuerMetadata {
  credential_issuer: string;
  authorization_servers?: string[];
  credential_endpoint: string;
  nonce_endpoint?: string;
  deferred_credential_endpoint?: string;
  notification_endpoint?: string;
  credential_request_encryption?: CredentialEncryptionMetadata["credential_request_encryption"];
  credential_response_encryption?: CredentialEncryptionMetadata["credential_response_encryption"];
  batch_credential_issuance?: { batch_size: number };
  display?: DisplayEntry[];
  credential_configurations_supported: Record<string, CredentialConfigurationSupported>;
}

/**
 * Credential Issuer Metadata (OpenID4VCI 1.0 §12.2) for `dc+sd-jwt` configurations: display and
 * claims sit under `credential_metadata`; binding methods and proof types only appear when holder
 * binding is required (they "MUST be present if ... and omitted otherwise").
 */
export function buildCredentialIssuerMetadata(
  input: BuildCredentialIssuerMetadataInput,
): CredentialIssuerMetadata {
  const configurations: Record<string, CredentialConfigurationSupported> = {};
  let anyBinding = false;
  for (const c of input.configurations) {
    if (Object.hasOwn(configurations, c.id))
      throw new TypeError(`duplicate credential configuration id ${c.id}`);
    const config: CredentialConfigurationSupported = {
      format: "dc+sd-jwt",
      vct: c.vct,
      scope: c.scope,
    } as CredentialConfigurationSupported;
    if (c.holderBinding) {
      anyBinding = true;
      config.cryptographic_binding_methods_supported = ["jwk"];
    }
    config.credential_signing_alg_values_supported = ["ES256"];
    if (c.holderBinding) {
      const required = c.keyAttestations?.required;
      const proofType = (): ProofTypeMetadata => ({
        proof_signing_alg_values_supported: ["ES256"],
        ...(required ? { key_attestations_required: { ...required } } : {}),
      });
      config.proof_types_supported = {
        jwt: proofType(),
        ...(c.keyAttestations ? { attestation: proofType() } : {}),
      };
    }
    const credentialMetadata: NonNullable<CredentialConfigurationSupported["credential_metadata"]> = {};
    if (c.display && c.display.length > 0) credentialMetadata.display = c.display;
    if (c.claims && c.claims.length > 0) {
      credentialMetadata.claims = c.claims.map((claim) => {
        if (claim.path.length === 0) throw new TypeError(`empty claim path in configuration ${c.id}`);
        const out: { path: ClaimPath; display?: DisplayEntry[]; mandatory?: boolean } = {
          path: [...claim.path],
        };
        if (claim.mandatory !== undefined) out.mandatory = claim.mandatory;
        if (claim.display && claim.display.length > 0) out.display = claim.display;
        return out;
      });
    }
    if (credentialMetadata.display || credentialMetadata.claims)
      config.credential_metadata = credentialMetadata;
    Object.defineProperty(configurations, c.id, {
      value: config,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  if (anyBinding && !input.nonceEndpoint) {
    throw new TypeError("a nonce endpoint is required when any configuration uses holder binding (HAIP)");
  }
  const metadata: CredentialIssuerMetadata = {
    credential_issuer: input.credentialIssuer,
    credential_endpoint: input.credentialEndpoint,
    credential_configurations_supported: configurations,
  };
  if (input.authorizationServers?.length) metadata.authorization_servers = [...input.authorizationServers];
  if (input.nonceEndpoint) metadata.nonce_endpoint = input.nonceEndpoint;
  if (input.deferredCredentialEndpoint)
    metadata.deferred_credential_endpoint = input.deferredCredentialEndpoint;
  if (input.notificationEndpoint) metadata.notification_endpoint = input.notificationEndpoint;
  if (input.credentialEncryption) {
    const { publicJwk, required } = input.credentialEncryption;
    Object.assign(metadata, credentialEncryptionMetadata(publicJwk, required));
  }
  if (input.batchSize !== undefined) {
    if (!Number.isInteger(input.batchSize) || input.batchSize < 1)
      throw new TypeError("batchSize must be >= 1");
    if (input.batchSize >= 2) metadata.batch_credential_issuance = { batch_size: input.batchSize };
  }
  if (input.display && input.display.length > 0) metadata.display = input.display;
  return metadata;
}

/** Header `typ` of signed Credential Issuer Metadata (OpenID4VCI 1.0 §12.2.3). */
export const SIGNED_ISSUER_METADATA_TYP = "openidvci-issuer-metadata+jwt";

/**
 * Signed Credential Issuer Metadata (§12.2.3): a JWS with `typ: openidvci-issuer-metadata+jwt`, every
 * metadata parameter as a top-level claim, `sub` = the credential issuer identifier, `iat` and `exp`.
 * The key is named by `kid` and by its certificate chain in `x5c` (HAIP: without the trust anchor). The
 * chain is required: a wallet must validate the signature and otherwise reject the metadata (§12.2.3),
 * and a `kid` alone points at no key it can find (there is no JWKS for issuer metadata).
 */
export function signIssuerMetadata(input: {
  metadata: CredentialIssuerMetadata;
  privateKey: Es256SigningKey;
  kid: string;
  x5c: readonly string[];
  /** Epoch seconds. */
  iat: number;
  exp: number;
}): Promise<string> {
  if (input.x5c.length === 0) throw new Error("signed issuer metadata needs the signing key's x5c chain");
  const header: JwsHeader = {
    alg: "ES256",
    typ: SIGNED_ISSUER_METADATA_TYP,
    kid: input.kid,
    x5c: [...input.x5c],
  };
  return signEs256Jwt(
    header,
    { ...input.metadata, sub: input.metadata.credential_issuer, iat: input.iat, exp: input.exp },
    input.privateKey,
  );
}
