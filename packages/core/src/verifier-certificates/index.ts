export { type ListedVerifierKey, listVerifierKeysAcrossTenants } from "./list-verifier-keys";
export { notifyExpiringRelyingPartyCertificates } from "./notify-expiring-certificates";
export {
  addRelyingPartyRegistrationCertificate,
  listRelyingPartyRegistrationCertificates,
} from "./registration-certificate";
