export { settleExpiry } from "./session-lifecycle";
export { encryptionKeySealContext, resultSealContext } from "./verification-session-dto";
export {
  ensureVerifierCertificate,
  isHeldElsewhere,
  publicHost,
  type VerifierKeyColumns,
  type VerifierKeyPlace,
  verifierDnsName,
  verifierIdentityCache,
  verifierIdentityKey,
  verifierKeyLocation,
  verifierKeyOf,
  verifierKeySealContext,
} from "./verifier-identity";
