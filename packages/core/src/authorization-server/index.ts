/**
 * The wallet authorization server's proof and client checks, shared by the issuer's token, PAR and
 * protected (credential, notification) endpoints: DPoP proofs (RFC 9449), the issuer's server nonces
 * and attestation challenges, and wallet attestation as client authentication.
 */
export {
  type AuthenticatedWallet,
  attestationChallengesOf,
  authenticateWallet,
  type WalletClientCredentials,
  walletAttestationOf,
} from "./client-authentication";
export { checkDpopProof, dpopProofForTokenRequest } from "./dpop";
export { type DpopNonces, dpopNoncesOf, type IssuerNonces, issuerNonces } from "./issuer-nonces";
