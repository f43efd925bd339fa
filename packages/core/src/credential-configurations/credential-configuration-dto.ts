import type { TClaimDefinition, TCredentialConfiguration } from "@cred/contracts/credential-configurations";
import type {
  CredentialConfigurationRow,
  CredentialConfigurationVersionRow,
} from "./credential-configuration-repository";

export function toCredentialConfigurationDto(
  row: CredentialConfigurationRow,
  versions: CredentialConfigurationVersionRow[],
): TCredentialConfiguration {
  const active = versions.find((v) => v.version === row.activeVersion);
  return {
    id: row.id,
    identifier: row.identifier,
    displayName: row.displayName,
    issuerId: row.issuerId,
    schemaId: row.schemaId,
    credentialType: row.credentialType,
    claims: (active?.claims ?? []) as TClaimDefinition[],
    defaultLifetimeDays: row.defaultLifetimeDays,
    format: row.format as TCredentialConfiguration["format"],
    signingAlgorithm: row.signingAlgorithm as TCredentialConfiguration["signingAlgorithm"],
    holderBindingRequired: row.holderBindingRequired,
    statusEnabled: row.statusEnabled,
    typeMetadataIntegrity: row.typeMetadataIntegrity,
    activeVersion: row.activeVersion,
    versions: versions.map((v) => ({
      version: v.version,
      status: v.status as TCredentialConfiguration["versions"][number]["status"],
      reason: v.reason,
      createdAt: v.createdAt.toISOString(),
      activatedAt: v.activatedAt?.toISOString() ?? null,
    })),
    environment: row.environment as TCredentialConfiguration["environment"],
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
