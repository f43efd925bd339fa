export type { TClaimDefinition } from "@cred/contracts/credential-configurations";
export { configurationCatalog } from "./configuration-catalog";
export { credentialConfigurationRepository } from "./credential-configuration-repository";
export { defaultCredentialType } from "./default-credential-type";
export {
  claimsOfEveryVersion,
  pinnedTypeMetadata,
  typeMetadataOf,
  versionsAgreeWithPinned,
} from "./type-metadata-document";
export { claimValueHasType } from "./validate-claims";
