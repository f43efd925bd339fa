export { configurationCatalog } from "./configuration-catalog";
export type { TClaimDefinition } from "./credential-configuration.schema";
export { credentialConfigurationRepository } from "./credential-configuration-repository";
export { defaultCredentialType } from "./default-credential-type";
export { claimValueHasType } from "./validate-claims";
