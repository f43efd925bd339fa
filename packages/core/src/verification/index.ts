export { settleExpiry } from "./session-lifecycle";
export { encryptionKeySealContext, resultSealContext } from "./verification-session-dto";
export {
  ensureVerifierCertificate,
  publicHost,
  verifierDnsName,
  verifierIdentityCache,
  verifierIdentityKey,
  verifierKeySealContext,
} from "./verifier-identity";
