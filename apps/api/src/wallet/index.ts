import type { AppDeps } from "@cred/core";
import type { FastifyInstance } from "fastify";
import { registerAuthorize } from "./authorize";
import { registerChallenge } from "./challenge";
import { withWalletCors } from "./cors";
import { registerCredential } from "./credential";
import { registerDeferredCredential } from "./deferred-credential";
import { registerMetadata } from "./metadata";
import { registerNonce } from "./nonce";
import { registerNotification } from "./notification";
import { registerOffer } from "./offer";
import { registerPushedAuthorizationRequest } from "./par";
import { registerRequestObject } from "./request-object";
import { registerResponse } from "./response";
import { registerStatusList } from "./status-list";
import { registerToken } from "./token";
import { registerTypeMetadata } from "./type-metadata";
import { registerVerifierDid } from "./verifier-did";

/**
 * Wallet-facing protocol endpoints, one file each: OpenID4VCI 1.0 under every issuer's credential issuer
 * identifier `<base>/issuers/<issuerId>` with its `.well-known` documents (path insertion), status lists,
 * and the OpenID4VP verifier endpoints. Core returns domain results and throws OAuth errors; these files
 * choose status codes, headers and media types, and `oauth-error-reply.ts` renders every OAuth error.
 */
export function registerWalletRoutes(app: FastifyInstance, deps: AppDeps) {
  // The browser navigates to the authorization endpoint (and its return URL), which sets cookies: no CORS.
  registerAuthorize(app, deps);
  // Everything a wallet calls with fetch, with CORS for browser-based wallets (cors.ts).
  // Named: traces show the plugin's name on its hook spans.
  app.register(function walletEndpoints(scoped) {
    return withWalletCors(scoped, (routes) => {
      registerMetadata(routes, deps);
      registerTypeMetadata(routes, deps);
      registerOffer(routes, deps);
      registerToken(routes, deps);
      registerPushedAuthorizationRequest(routes, deps);
      registerChallenge(routes, deps);
      registerNonce(routes, deps);
      registerCredential(routes, deps);
      registerDeferredCredential(routes, deps);
      registerNotification(routes, deps);
      registerStatusList(routes, deps);
      registerRequestObject(routes, deps);
      registerVerifierDid(routes, deps);
      registerResponse(routes, deps);
    });
  });
}
