import type { AppDeps } from "@cred/core";
import { attestationChallengesOf, dpopNoncesOf } from "@cred/core/authorization-server/index";
import { pushAuthorizationRequest } from "@cred/core/issuance/index";
import { issuerUrls } from "@cred/core/issuers/index";
import type { FastifyInstance } from "fastify";
import { formOf } from "./form";
import { oauthErrors } from "./oauth-reply";
import { attestationChallengeHeader, dpopNonceHeader, NO_STORE } from "./response-headers";
import { walletClient } from "./wallet-client";
import { noSuchIssuer, withIssuer } from "./wallet-issuer";

/** RFC 9126: the only way into the authorization code flow (require_pushed_authorization_requests); 201. */
export function registerPushedAuthorizationRequest(app: FastifyInstance, deps: AppDeps) {
  app.post(
    "/issuers/:issuerId/par",
    oauthErrors("invalid_request"),
    withIssuer(
      deps,
      async (issuer, request, reply) => {
        const form = formOf(request, "pushed authorization request");
        const url = issuerUrls(deps.config, issuer.id).pushedAuthorizationRequest;
        // requireDpop is enforced on the request (a proof or dpop_jkt), not on the proof alone.
        const nonces = dpopNoncesOf(deps.secretBox, issuer);
        const challenges = attestationChallengesOf(deps.secretBox, issuer);
        const client = await walletClient(deps, request, { url, requireDpop: false }, nonces, challenges);
        const response = await pushAuthorizationRequest(
          deps.database.prisma,
          deps.database.fast,
          deps.config,
          issuer,
          form,
          client,
        );
        return reply
          .code(201)
          .headers({ ...NO_STORE, ...dpopNonceHeader(nonces), ...attestationChallengeHeader(challenges) })
          .send(response);
      },
      noSuchIssuer("invalid_request", 400),
    ),
  );
}
