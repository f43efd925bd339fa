export { type ListedVerifierKey, listVerifierKeysAcrossTenants } from "./list-verifier-keys";
