import type { IssuerStatus, TIssuer, TPreviousSigningKey } from "@cred/contracts/issuers";
import type { CoreConfig } from "../shared/context";
import { credentialEncryptionDto } from "./credential-encryption-key";
import { credentialIssuerIdentifier } from "./credential-issuer-identifier";
import type { IssuerRow } from "./issuer-repository";
import { nextSigningKeyDto } from "./stored-next-signing-key";
import { signingCertificateDto } from "./stored-signing-certificate";

export function toIssuerDto(
  config: Pick<CoreConfig, "publicBaseUrl">,
  row: IssuerRow,
  organisationReference: string,
): TIssuer {
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
      kid: row.signingKid,
      alg: "ES256",
      publicJwk: row.publicJwk as Record<string, unknown>,
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
    signingCertificate: signingCertificateDto(row.signingCertificate),
    environment: row.environment as TIssuer["environment"],
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    activatedAt: row.activatedAt?.toISOString() ?? null,
  };
}

/** The replaced keys an issuer still publishes, as stored (newest first); anything malformed is left out. */
export function previousSigningKeysOf(row: { previousSigningKeys: unknown }): StoredPreviousSigningKey[] {
  const stored = row.previousSigningKeys;
  if (!Array.isArray(stored)) return [];
  return stored.filter(
    (key): key is StoredPreviousSigningKey =>
      typeof key?.kid === "string" &&
      typeof key?.publicJwk === "object" &&
      key.publicJwk !== null &&
      typeof key?.retiredAt === "string",
  );
}

// A type alias, not an interface: Prisma's JSON input type needs the implicit index signature.
export type StoredPreviousSigningKey = Omit<TPreviousSigningKey, "alg">;
