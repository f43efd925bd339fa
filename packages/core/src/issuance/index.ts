export { ZCreateIssuanceTransactionRequest, ZIssuanceTransactionResponse } from "@cred/contracts/issuance";
export { issueThroughTransaction } from "./create-issuance-transaction";
export { claimsOfSpentTokensSql, issuanceRepository } from "./issuance-repository";
export { lockBatch } from "./lock-batch";
export { TX_CODE_HASH_PURPOSE } from "./tx-code";
export { authorize, pushAuthorizationRequest } from "./wallet/authorization";
export { returnFromAuthorizationPage, setCookieHeader } from "./wallet/authorization-page";
export { attestationChallengeHeader, attestationChallengesOf } from "./wallet/client-authentication";
export { issueCredentials } from "./wallet/credential";
export { issueDeferredCredentials } from "./wallet/deferred-credential";
export { dpopProofForTokenRequest } from "./wallet/dpop";
export { dpopNonceHeader, dpopNoncesOf } from "./wallet/issuer-nonces";
export { invalidToken, loadWalletIssuer, NO_STORE, type WalletIssuer } from "./wallet/load-wallet-issuer";
export {
  authorizationServerMetadata,
  credentialIssuerMetadata,
  jwtVcIssuerMetadata,
  signedCredentialIssuerMetadata,
} from "./wallet/metadata";
export { issueNonce } from "./wallet/nonce";
export { recordNotification } from "./wallet/notification";
export { credentialOfferByHandle } from "./wallet/offer";
export { exchangeToken } from "./wallet/token";
export { credentialTypeMetadata } from "./wallet/type-metadata";
