import type { CoreConfig } from "../context";
import { credentialIssuerIdentifier } from "./credential-issuer-identifier";
import type { IssuerStatus, TIssuer } from "./issuer.schema";
import type { IssuerRow } from "./issuer-repository";

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
    environment: row.environment as TIssuer["environment"],
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    activatedAt: row.activatedAt?.toISOString() ?? null,
  };
}
