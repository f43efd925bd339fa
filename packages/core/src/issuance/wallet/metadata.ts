import type { UnitOfWork } from "@cred/db";
import {
  buildAuthorizationServerMetadata,
  buildCredentialIssuerMetadata,
  DPOP_SIGNING_ALGS,
  signIssuerMetadata,
} from "@cred/oid4vc";
import { walletAttestationOf } from "../../authorization-server";
import type { TClaimDefinition } from "../../credential-configurations";
import type { TIssuerDisplay } from "../../issuers";
import {
  credentialEncryptionOf,
  currentSigningKeyOf,
  expWithinChain,
  issuerRepository,
  issuerSigningKey,
  issuerUrls,
  nextSigningKeyOf,
  previousSigningKeysOf,
  retiredStatusListSigningKeysOf,
  signingCertificateInUse,
  signingCertificateOf,
  statusListSigningKeyOf,
  x5cForSigning,
} from "../../issuers";
import type { Caches } from "../../shared/caches";
import type { CoreConfig } from "../../shared/context";
import type { KeyCustody } from "../../shared/key-custody";
import { issuerMetadataRepository } from "../issuer-metadata-repository";
import { keyAttestationOf, keyAttestationsRequired } from "./key-attestation";
import type { WalletIssuer } from "./load-wallet-issuer";

/** An issuer display entry as §12.2.4 names its members (the REST API's `altText` is `alt_text` there). */
function walletDisplay({ logo, ...entry }: TIssuerDisplay) {
  if (!logo) return entry;
  return { ...entry, logo: { uri: logo.uri, ...(logo.altText ? { alt_text: logo.altText } : {}) } };
}

/** OpenID4VCI credential issuer metadata (§12.2) for an active issuer and its authorised configurations. */
export async function credentialIssuerMetadata(db: UnitOfWork, config: CoreConfig, issuer: WalletIssuer) {
  const urls = issuerUrls(config, issuer.id);
  const { configurations, activeVersions } = await issuerMetadataRepository.grantedConfigurations(
    db,
    issuer.id,
  );
  const claimsOf = new Map(activeVersions.map((v) => [v.configurationId, v.claims as TClaimDefinition[]]));
  // Display metadata can change (Issuers_Update), so it is read fresh rather than from the cached row.
  const fresh = (await issuerRepository.findByIdWithKeys(db, issuer.id)) ?? issuer;
  const display = ((fresh.display as TIssuerDisplay[] | null) ?? []).map(walletDisplay);
  // The issuer's key attestation settings hold for each of its configurations.
  const keyAttestations = keyAttestationOf(fresh)
    ? { keyAttestations: { required: keyAttestationsRequired(fresh) } }
    : {};
  const encryption = credentialEncryptionOf(fresh);
  return buildCredentialIssuerMetadata({
    credentialIssuer: urls.credentialIssuer,
    ...(encryption ? { credentialEncryption: encryption } : {}),
    credentialEndpoint: urls.credential,
    deferredCredentialEndpoint: urls.deferredCredential,
    nonceEndpoint: urls.nonce,
    notificationEndpoint: urls.notification,
    batchSize: config.issuance.batchSize,
    display: display.length > 0 ? display : [{ name: fresh.displayName }],
    configurations: configurations.map((c) => ({
      id: c.identifier,
      vct: c.credentialType,
      scope: c.identifier,
      display: [{ name: c.displayName }],
      claims: (claimsOf.get(c.id) ?? []).map((claim) => ({
        path: claim.path,
        ...(claim.display?.length ? { display: claim.display } : {}),
        mandatory: claim.required,
      })),
      holderBinding: c.holderBindingRequired,
      ...keyAttestations,
    })),
  });
}

/** How long signed metadata may be used (`exp`), unless the certificate chain ends sooner. */
const SIGNED_METADATA_LIFETIME_SECONDS = 86_400;

/**
 * The metadata as a JWT signed with the issuer's key (OpenID4VCI §12.2.3), with the key's certificate
 * chain in `x5c`, so that a wallet can establish trust in the signer (HAIP §4.1); or null while the
 * issuer has no signing certificate in use. A JWT whose header names its key by `kid` alone is one no
 * wallet can resolve, and §12.2.3 has a wallet reject metadata whose signature it cannot validate: the
 * caller answers JSON instead (§12.2.2).
 */
export async function signedCredentialIssuerMetadata(
  deps: { db: UnitOfWork; config: CoreConfig; keyCustody: KeyCustody; caches: Caches },
  issuer: WalletIssuer,
): Promise<string | null> {
  const now = Date.now();
  const certificate = signingCertificateInUse(signingCertificateOf(issuer), now);
  if (!certificate) return null;
  const metadata = await credentialIssuerMetadata(deps.db, deps.config, issuer);
  const key = await issuerSigningKey(deps, issuer);
  const iat = Math.floor(now / 1000);
  return signIssuerMetadata({
    metadata,
    privateKey: key.privateKey,
    kid: key.kid,
    x5c: certificate.x5c,
    iat,
    exp: expWithinChain(iat, SIGNED_METADATA_LIFETIME_SECONDS, certificate),
  });
}

function attestationOf(config: CoreConfig, issuer: WalletIssuer) {
  const settings = walletAttestationOf(issuer);
  if (!settings) return {};
  const challengeEndpoint = settings.requireChallenge
    ? { challengeEndpoint: issuerUrls(config, issuer.id).attestationChallenge }
    : {};
  return { clientAttestation: { required: settings.required, ...challengeEndpoint } };
}

export function authorizationServerMetadata(config: CoreConfig, issuer: WalletIssuer) {
  const urls = issuerUrls(config, issuer.id);
  return buildAuthorizationServerMetadata({
    issuer: urls.credentialIssuer,
    tokenEndpoint: urls.token,
    authorizationEndpoint: urls.authorization,
    pushedAuthorizationRequestEndpoint: urls.pushedAuthorizationRequest,
    dpopSigningAlgValuesSupported: [...DPOP_SIGNING_ALGS],
    ...attestationOf(config, issuer),
  });
}

const withChain = (jwk: Record<string, unknown>, x5c: string[] | undefined) => ({
  ...jwk,
  ...(x5c ? { x5c } : {}),
});

/** SD-JWT VC issuer metadata (`/.well-known/jwt-vc-issuer`): `issuer` equals the credentials' `iss`. */
export function jwtVcIssuerMetadata(config: CoreConfig, issuer: WalletIssuer) {
  // RFC 7517 §4.7: the key's certificate chain, as credentials carry it in `x5c`.
  const x5c = x5cForSigning(signingCertificateOf(issuer));
  const currentKey = withChain(currentSigningKeyOf(issuer).publicJwk as Record<string, unknown>, x5c);
  const nextKey = nextSigningKeyOf(issuer);
  const statusListKey = statusListSigningKeyOf(issuer);
  return {
    issuer: issuerUrls(config, issuer.id).credentialIssuer,
    // Replaced keys that were kept stay here, so that credentials they signed keep verifying.
    // The prepared next key is published ahead of use, so that caches have it before it signs.
    jwks: {
      keys: [
        currentKey,
        ...(nextKey ? [withChain(nextKey.publicJwk, x5cForSigning(nextKey.signingCertificate ?? null))] : []),
        ...previousSigningKeysOf(issuer).map((key) => key.publicJwk),
        // A separate status list signing key: status list tokens name it by kid. A retired one stays
        // until the tokens it signed have expired.
        ...(statusListKey ? [statusListKey.publicJwk as Record<string, unknown>] : []),
        ...retiredStatusListSigningKeysOf(issuer).map((key) => key.publicJwk as Record<string, unknown>),
      ],
    },
  };
}
