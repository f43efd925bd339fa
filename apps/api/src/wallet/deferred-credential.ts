import type { AppDeps } from "@cred/core";
import { issueDeferredCredentials } from "@cred/core/issuance/index";
import type { FastifyInstance } from "fastify";
import { acceptJwtBodies, sendCredentialAnswer, tokenNotForIssuer } from "./credential-answer";
import { oauthErrors } from "./oauth-reply";
import { presentedCredentials } from "./presented-credentials";
import { withIssuer } from "./wallet-issuer";

/** Deferred credential endpoint (OpenID4VCI §9): JSON, or an encrypted request (§10). */
export function registerDeferredCredential(app: FastifyInstance, deps: AppDeps) {
  app.register(async (scoped) => {
    acceptJwtBodies(scoped);
    scoped.post(
      "/issuers/:issuerId/deferred-credential",
      oauthErrors("invalid_credential_request"),
      withIssuer(
        deps,
        async (issuer, request, reply) => {
          const answer = await issueDeferredCredentials(deps, issuer, presentedCredentials(request), {
            contentType: request.headers["content-type"],
            body: request.body,
          });
          return sendCredentialAnswer(deps, issuer, reply, answer);
        },
        tokenNotForIssuer,
      ),
    );
  });
}
