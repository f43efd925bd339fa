import type { AppDeps } from "@cred/core";
import { credentialOfferByHandle } from "@cred/core/wallet";
import type { FastifyInstance } from "fastify";
import { notFound } from "./oauth-reply";
import { NO_STORE } from "./response-headers";
import { withIssuingIssuer } from "./wallet-issuer";

/** The credential offer by reference (OpenID4VCI §4.1.3: `credential_offer_uri`). */
export function registerOffer(app: FastifyInstance, deps: AppDeps) {
  app.get(
    "/issuers/:issuerId/offers/:handle",
    withIssuingIssuer(deps, async (issuer, request, reply, deps) => {
      const { handle } = request.params as { handle: string };
      const offer = await credentialOfferByHandle(deps, deps.database.root, issuer.id, handle);
      if (!offer) return notFound(reply, "The credential offer");
      reply.headers(NO_STORE);
      return offer;
    }),
  );
}
