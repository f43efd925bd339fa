export { settleExpiry } from "./session-lifecycle";
export { encryptionKeySealContext, resultSealContext } from "./verification-session-dto";
export {
  ensureVerifierCertificate,
  isHeldElsewhere,
  publicHost,
  type VerifierKeyColumns,
  verifierDnsName,
  verifierIdentityCache,
  verifierIdentityKey,
  verifierKeyLocation,
  verifierKeyOf,
  verifierKeySealContext,
} from "./verifier-identity";
