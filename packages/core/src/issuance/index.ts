export { ZCreateIssuanceTransactionRequest, ZIssuanceTransactionResponse } from "@cred/contracts/issuance";
export { issueThroughTransaction } from "./create-issuance-transaction";
export { claimsOfSpentTokensSql, issuanceRepository } from "./issuance-repository";
export { TX_CODE_HASH_PURPOSE } from "./tx-code";
export { authorize, pushAuthorizationRequest } from "./wallet/authorization";
export { type BrowserBindingCookie, returnFromAuthorizationPage } from "./wallet/authorization-page";
export {
  type CredentialAnswer,
  issueCredentials,
  type PresentedAccessToken,
  type PresentedCredentials,
} from "./wallet/credential";
export { issueDeferredCredentials } from "./wallet/deferred-credential";
export { invalidToken, loadWalletIssuer, type WalletIssuer } from "./wallet/load-wallet-issuer";
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
