/**
 * The wallet authorization server of every issuer (its own authorization server): the pushed
 * authorization request, authorization and token endpoints (pre-authorized and authorization_code
 * grants), the access tokens they issue and their lookup for the protected endpoints (credential,
 * deferred credential, notification), DPoP proofs (RFC 9449), the issuer's server nonces and attestation
 * challenges, and wallet attestation as client authentication. It redeems the issuance transactions'
 * offers through its own statements over their redemption state (docs/adr/0020-authorization-server-slice.md).
 */
export { claimsOfSpentTokensSql } from "./access-token-repository";
export {
  authorizationReturn,
  type BrowserBindingCookie,
  returnFromAuthorizationPage,
} from "./authorization-page";
export { authorize } from "./authorize";
export {
  attestationChallengesOf,
  type WalletClientCredentials,
  walletAttestationOf,
} from "./client-authentication";
export { dpopProofForTokenRequest } from "./dpop";
export { exchangeToken } from "./exchange-token";
export { dpopNoncesOf, type IssuerNonces } from "./issuer-nonces";
export { isRedeemableOffer } from "./offer-redemption";
export {
  invalidToken,
  type PresentedAccessToken,
  type PresentedCredentials,
  type ProtectedRequest,
  transactionForToken,
} from "./protected-resource";
export { pushAuthorizationRequest } from "./push-authorization-request";
export type { IssuanceTransactionRecord } from "./redeemed-transactions";
export { offerRedeemableSql } from "./redemption-repository";
export { hashTxCode, TX_CODE_HASH_PURPOSE } from "./tx-code";
