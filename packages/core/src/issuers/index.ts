export {
  type TAuthorizationPage,
  type TIssuerDisplay,
  type TKeyAttestation,
  type TWalletAttestation,
  zIssuerId,
  zLocale,
} from "@cred/contracts/issuers";
export { activeIssuer } from "./active-issuer-cache";
export {
  credentialEncryptionKeys,
  credentialEncryptionOf,
  credentialEncryptionSealContext,
  retireExpiredCredentialEncryptionKeys,
} from "./credential-encryption-key";
export { credentialIssuerIdentifier } from "./credential-issuer-identifier";
export { findVisibleIssuer, type IssuerCaller, issuerCallerOf, scopeOfCaller } from "./issuer-caller";
export { previousSigningKeysOf } from "./issuer-dto";
export { issuerKeyRepository } from "./issuer-key-repository";
export {
  currentSigningKeyOf,
  retiredStatusListSigningKeysOf,
  signingCertificateOf,
  statusListSigningKeyOf,
} from "./issuer-keys";
export { issuerRepository } from "./issuer-repository";
export { issuerSigningKey } from "./issuer-signing-keys";
export { issuerUrls } from "./issuer-urls";
export { type ListedIssuerKey, listIssuerKeysAcrossTenants } from "./list-issuer-keys";
export { platformIssuerKeyCacheKey, platformIssuerKeysCache } from "./platform-issuer-keys";
export { provisionStatusList, STATUS_LIST_BITS } from "./provision-status-list";
export { STATUS_CHUNK_BYTES, statusEntryLocation } from "./status-list-chunks";
export { type StatusListFill, statusListFillRepository } from "./status-list-fill-repository";
export { statusListToken } from "./status-list-token";
export { nextSigningKeyOf } from "./stored-next-signing-key";
export { expWithinChain, signingCertificateInUse, x5cForSigning } from "./stored-signing-certificate";
