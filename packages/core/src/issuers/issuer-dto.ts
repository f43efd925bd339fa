import type { IssuerStatus, TIssuer, TPreviousSigningKey } from "@cred/contracts/issuers";
import type { CoreConfig } from "../shared/context";
import { credentialEncryptionDto } from "./credential-encryption-key";
import { credentialIssuerIdentifier } from "./credential-issuer-identifier";
import { issuerKeyCustodyOf } from "./issuer-key-custody-purposes";
import {
  certificateOfKey,
  currentSigningKeyOf,
  retiredSigningKeysOf,
  statusListSigningKeyOf,
  type WithIssuerKeys,
} from "./issuer-keys";
import type { IssuerRow } from "./issuer-repository";
import { nextSigningKeyDto } from "./stored-next-signing-key";
import { signingCertificateDto } from "./stored-signing-certificate";

export function toIssuerDto(
  config: Pick<CoreConfig, "publicBaseUrl">,
  row: IssuerRow,
  organisationReference: string,
): TIssuer {
  const signingKey = currentSigningKeyOf(row);
  return {
    id: row.id,
    organisationReference,
    displayName: row.displayName,
    description: row.description,
    logoUri: row.logoUri,
    display: row.display as TIssuer["display"],
    status: row.status as IssuerStatus,
    credentialIssuer: credentialIssuerIdentifier(config, row.id),
    signingKey: {
      kid: signingKey.kid,
      alg: "ES256",
      publicJwk: signingKey.publicJwk as Record<string, unknown>,
    },
    previousSigningKeys: previousSigningKeysOf(row).map((key) => ({ ...key, alg: "ES256" })),
    nextSigningKey: nextSigningKeyDto(row),
    requireDpop: row.requireDpop,
    requireDpopNonce: row.requireDpopNonce,
    walletAttestation: (row.walletAttestation as TIssuer["walletAttestation"]) ?? null,
    keyAttestation: (row.keyAttestation as TIssuer["keyAttestation"]) ?? null,
    authorizationPage: (row.authorizationPage as TIssuer["authorizationPage"]) ?? null,
    allowedRedirectUris: (row.allowedRedirectUris as TIssuer["allowedRedirectUris"]) ?? null,
    credentialEncryption: credentialEncryptionDto(row),
    signingCertificate: signingCertificateDto(certificateOfKey(signingKey)),
    keyCustody: issuerKeyCustodyOf(row),
    statusListSigning: statusListSigningDto(row),
    environment: row.environment as TIssuer["environment"],
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    activatedAt: row.activatedAt?.toISOString() ?? null,
  };
}

/** Which key signs the issuer's status list tokens: its own (public JWK shown), or the credential signing key. */
function statusListSigningDto(row: WithIssuerKeys): TIssuer["statusListSigning"] {
  const key = statusListSigningKeyOf(row);
  return { separateKey: key !== null, publicJwk: (key?.publicJwk as Record<string, unknown>) ?? null };
}

/** The replaced keys an issuer still publishes (newest first); their private parts are gone. */
export function previousSigningKeysOf(row: WithIssuerKeys): StoredPreviousSigningKey[] {
  return retiredSigningKeysOf(row).map((key) => ({
    kid: key.kid,
    publicJwk: key.publicJwk as Record<string, unknown>,
    retiredAt: (key.retiredAt ?? key.createdAt).toISOString(),
  }));
}

export type StoredPreviousSigningKey = Omit<TPreviousSigningKey, "alg">;
