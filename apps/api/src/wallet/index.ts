import type { AppDeps } from "@cred/core";
import type { FastifyInstance } from "fastify";
import { registerAuthorize } from "./authorize";
import { registerChallenge } from "./challenge";
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

/**
 * Wallet-facing protocol endpoints, one file each: OpenID4VCI 1.0 under every issuer's credential issuer
 * identifier `<base>/issuers/<issuerId>` with its `.well-known` documents (path insertion), status lists,
 * and the OpenID4VP verifier endpoints. Core returns domain results and throws OAuth errors; these files
 * choose status codes, headers and media types, and `oauth-error-reply.ts` renders every OAuth error.
 */
export function registerWalletRoutes(app: FastifyInstance, deps: AppDeps) {
  registerMetadata(app, deps);
  registerTypeMetadata(app, deps);
  registerOffer(app, deps);
  registerToken(app, deps);
  registerPushedAuthorizationRequest(app, deps);
  registerAuthorize(app, deps);
  registerChallenge(app, deps);
  registerNonce(app, deps);
  registerCredential(app, deps);
  registerDeferredCredential(app, deps);
  registerNotification(app, deps);
  registerStatusList(app, deps);
  registerRequestObject(app, deps);
  registerResponse(app, deps);
}
