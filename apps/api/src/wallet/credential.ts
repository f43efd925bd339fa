import type { AppDeps } from "@cred/core";
import { issueCredentials } from "@cred/core/wallet";
import type { FastifyInstance } from "fastify";
import { registerCredentialRoute } from "./credential-answer";

/** Credential endpoint (OpenID4VCI §8): JSON, or an encrypted request (§10). */
export function registerCredential(app: FastifyInstance, deps: AppDeps) {
  registerCredentialRoute(app, deps, "/issuers/:issuerId/credential", issueCredentials);
}
