import type { AppDeps } from "@cred/core";
import { issueCredentials } from "@cred/core/issuance/index";
import type { FastifyInstance } from "fastify";
import { acceptJwtBodies, sendCredentialAnswer, tokenNotForIssuer } from "./credential-answer";
import { oauthErrors } from "./oauth-reply";
import { presentedCredentials } from "./presented-credentials";
import { withIssuer } from "./wallet-issuer";

/** Credential endpoint (OpenID4VCI §8): JSON, or an encrypted request (§10). */
export function registerCredential(app: FastifyInstance, deps: AppDeps) {
  app.register(async (scoped) => {
    acceptJwtBodies(scoped);
    scoped.post(
      "/issuers/:issuerId/credential",
      oauthErrors("invalid_credential_request"),
      withIssuer(
        deps,
        async (issuer, request, reply) => {
          const answer = await issueCredentials(deps, issuer, presentedCredentials(request), {
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
