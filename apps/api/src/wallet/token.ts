import type { AppDeps } from "@cred/core";
import { exchangeToken, issuerUrls } from "@cred/core/wallet";
import type { FastifyInstance } from "fastify";
import { formOf } from "./form";
import { oauthErrors } from "./oauth-reply";
import { NO_STORE } from "./response-headers";
import { walletClient } from "./wallet-client";
import { noSuchIssuer, withIssuingIssuer } from "./wallet-issuer";

/** Token endpoint (OpenID4VCI §6, RFC 6749 §3.2): either grant, a form, `no-store` (RFC 6749 §5.1). */
export function registerToken(app: FastifyInstance, deps: AppDeps) {
  app.post(
    "/issuers/:issuerId/token",
    oauthErrors("invalid_request"),
    withIssuingIssuer(
      deps,
      async (issuer, request, reply, deps) => {
        const form = formOf(request, "token request");
        const url = issuerUrls(deps.config, issuer.id).token;
        const { client, replyHeaders } = await walletClient(deps, request, issuer, {
          url,
          requireDpop: issuer.requireDpop,
        });
        const response = await exchangeToken(deps, deps.database.root, issuer, form, client);
        reply.headers({
          ...NO_STORE,
          Pragma: "no-cache",
          ...replyHeaders,
        });
        return response;
      },
      noSuchIssuer("invalid_grant", 400),
    ),
  );
}
