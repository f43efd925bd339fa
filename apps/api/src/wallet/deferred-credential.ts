import type { AppDeps } from "@cred/core";
import { issueDeferredCredentials } from "@cred/core/wallet";
import type { FastifyInstance } from "fastify";
import { registerCredentialRoute } from "./credential-answer";

/** Deferred credential endpoint (OpenID4VCI §9): JSON, or an encrypted request (§10). */
export function registerDeferredCredential(app: FastifyInstance, deps: AppDeps) {
  registerCredentialRoute(app, deps, "/issuers/:issuerId/deferred-credential", issueDeferredCredentials);
}
