export { ZCreateIssuanceTransactionRequest, ZIssuanceTransactionResponse } from "@cred/contracts/issuance";
export { issueThroughTransaction } from "./create-issuance-transaction";
export { issuanceRepository } from "./issuance-repository";
export { type CredentialAnswer, issueCredentials } from "./wallet/credential";
export { issueDeferredCredentials } from "./wallet/deferred-credential";
export { assertIssuerTenantActive, loadWalletIssuer, type WalletIssuer } from "./wallet/load-wallet-issuer";
export {
  authorizationServerMetadata,
  credentialIssuerMetadata,
  jwtVcIssuerMetadata,
  signedCredentialIssuerMetadata,
} from "./wallet/metadata";
export { issueNonce } from "./wallet/nonce";
export { recordNotification } from "./wallet/notification";
export { credentialOfferByHandle } from "./wallet/offer";
export { credentialTypeMetadata, servedTypeMetadata } from "./wallet/type-metadata";
