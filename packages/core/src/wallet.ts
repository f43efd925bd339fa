// `@cred/core/wallet`: the use-cases behind the wallet-facing endpoints that apps/api/src/wallet serves
// over HTTP (OpenID4VCI issuer and its authorization server, OpenID4VP verifier, status lists). They
// return domain results and throw domain or OAuth errors; the API decides status codes and headers.
import "./shared/contract-checks";

export {
  attestationChallengesOf,
  authorize,
  type BrowserBindingCookie,
  dpopNoncesOf,
  dpopProofForTokenRequest,
  exchangeToken,
  type IssuerNonces,
  invalidToken,
  type PresentedAccessToken,
  type PresentedCredentials,
  pushAuthorizationRequest,
  returnFromAuthorizationPage,
  type WalletClientCredentials,
} from "./authorization-server";
export {
  assertIssuerTenantActive,
  authorizationServerMetadata,
  type CredentialAnswer,
  credentialIssuerMetadata,
  credentialOfferByHandle,
  issueCredentials,
  issueDeferredCredentials,
  issueNonce,
  jwtVcIssuerMetadata,
  loadWalletIssuer,
  recordNotification,
  servedTypeMetadata,
  signedCredentialIssuerMetadata,
  type WalletIssuer,
} from "./issuance";
export { issuerUrls, statusListToken } from "./issuers";
export { receiveWalletResponse } from "./verification/receive-wallet-response";
export { serveRequestObject } from "./verification/serve-request-object";
export { serveVerifierDidDocument } from "./verification/serve-verifier-did-document";
