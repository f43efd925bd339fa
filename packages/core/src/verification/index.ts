export { settleExpiry } from "./session-lifecycle";
export { encryptionKeySealContext, resultSealContext } from "./verification-session-dto";
export {
  ensureVerifierCertificate,
  invalidateVerifierIdentity,
  publicHost,
  verifierDnsName,
  verifierKeySealContext,
} from "./verifier-identity";
