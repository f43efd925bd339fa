import type { AppDeps } from "@cred/core";
import { dpopNoncesOf, issueNonce } from "@cred/core/wallet";
import type { FastifyInstance } from "fastify";
import { oauthErrors } from "./oauth-reply";
import { dpopNonceHeader, NO_STORE } from "./response-headers";
import { noSuchIssuer, withIssuingIssuer } from "./wallet-issuer";

/** Nonce endpoint (OpenID4VCI §7): a fresh `c_nonce`, `no-store`. */
export function registerNonce(app: FastifyInstance, deps: AppDeps) {
  app.post(
    "/issuers/:issuerId/nonce",
    oauthErrors("invalid_request"),
    withIssuingIssuer(
      deps,
      async (issuer, _request, reply, deps) => {
        // OpenID4VCI §7.2: the nonce endpoint may hand out the DPoP nonce for the credential endpoint too.
        reply.headers({ ...NO_STORE, ...dpopNonceHeader(dpopNoncesOf(deps.secretBox, issuer)) });
        return issueNonce(deps.secretBox, issuer.id, deps.config.issuance.nonceLifetimeSeconds);
      },
      noSuchIssuer("invalid_request", 404),
    ),
  );
}
