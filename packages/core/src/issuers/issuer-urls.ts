import type { CoreConfig } from "../shared/context";
import { credentialIssuerIdentifier } from "./credential-issuer-identifier";

/** Every wallet-facing URL of an issuer, derived from its credential issuer identifier. */
export function issuerUrls(config: Pick<CoreConfig, "publicBaseUrl">, issuerId: string) {
  const credentialIssuer = credentialIssuerIdentifier(config, issuerId);
  return {
    credentialIssuer,
    token: `${credentialIssuer}/token`,
    pushedAuthorizationRequest: `${credentialIssuer}/par`,
    authorization: `${credentialIssuer}/authorize`,
    authorizationReturn: `${credentialIssuer}/authorize/return`,
    attestationChallenge: `${credentialIssuer}/challenge`,
    nonce: `${credentialIssuer}/nonce`,
    credential: `${credentialIssuer}/credential`,
    deferredCredential: `${credentialIssuer}/deferred-credential`,
    notification: `${credentialIssuer}/notification`,
    offer: (handle: string) => `${credentialIssuer}/offers/${handle}`,
    statusList: (listId: string) => `${credentialIssuer}/status-lists/${listId}`,
  };
}
