import type { AppDeps } from "@cred/core";
import { dpopNoncesOf, issuerUrls, recordNotification } from "@cred/core/wallet";
import type { FastifyInstance } from "fastify";
import { tokenNotForIssuer } from "./credential-answer";
import { oauthErrors } from "./oauth-reply";
import { presentedCredentials } from "./presented-credentials";
import { dpopNonceHeader, NO_STORE } from "./response-headers";
import { withIssuer } from "./wallet-issuer";

/** Notification endpoint (OpenID4VCI §11): 204, `no-store`. */
export function registerNotification(app: FastifyInstance, deps: AppDeps) {
  app.post(
    "/issuers/:issuerId/notification",
    oauthErrors("invalid_notification_request"),
    withIssuer(
      deps,
      async (issuer, request, reply, deps) => {
        const presented = presentedCredentials(request);
        const url = issuerUrls(deps.config, issuer.id).notification;
        const nonces = dpopNoncesOf(deps.secretBox, issuer);
        await recordNotification(
          deps.database.root,
          deps.caches,
          issuer.id,
          { ...presented, method: "POST", url, requireDpop: issuer.requireDpop, dpopNonces: nonces },
          request.body,
        );
        return reply
          .code(204)
          .headers({ ...NO_STORE, ...dpopNonceHeader(nonces) })
          .send();
      },
      tokenNotForIssuer,
    ),
  );
}
