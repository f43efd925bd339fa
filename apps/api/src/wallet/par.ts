import type { AppDeps } from "@cred/core";
import { issuerUrls, pushAuthorizationRequest } from "@cred/core/wallet";
import type { FastifyInstance } from "fastify";
import { formOf } from "./form";
import { oauthErrors } from "./oauth-reply";
import { NO_STORE } from "./response-headers";
import { walletClient } from "./wallet-client";
import { noSuchIssuer, withIssuingIssuer } from "./wallet-issuer";

/** RFC 9126: the only way into the authorization code flow (require_pushed_authorization_requests); 201. */
export function registerPushedAuthorizationRequest(app: FastifyInstance, deps: AppDeps) {
  app.post(
    "/issuers/:issuerId/par",
    oauthErrors("invalid_request"),
    withIssuingIssuer(
      deps,
      async (issuer, request, reply, deps) => {
        const form = formOf(request, "pushed authorization request");
        const url = issuerUrls(deps.config, issuer.id).pushedAuthorizationRequest;
        // requireDpop is enforced on the request (a proof or dpop_jkt), not on the proof alone.
        const { client, replyHeaders } = await walletClient(deps, request, issuer, {
          url,
          requireDpop: false,
        });
        const response = await pushAuthorizationRequest(deps, deps.database.root, issuer, form, client);
        return reply
          .code(201)
          .headers({ ...NO_STORE, ...replyHeaders })
          .send(response);
      },
      noSuchIssuer("invalid_request", 400),
    ),
  );
}
