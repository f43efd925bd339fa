import type { AppDeps } from "@cred/core";
import { serveVerifierDidDocument } from "@cred/core/wallet";
import type { FastifyInstance } from "fastify";
import { oauthErrors } from "./oauth-reply";
import { verifierHandler } from "./verifier-reply";

type DidParams = { Params: { tenantId: string; environment: string } };

/**
 * The verifier's did:web document (`decentralized_identifier` with `didMethod: web`), unauthenticated:
 * `GET /verifier/{tenantId}/{environment}/did.json` answers the DID document (`application/did+json`,
 * cached five minutes: a replaced certificate shows within that time), 404 for a tenant + environment
 * without a verifier key.
 */
export function registerVerifierDid(app: FastifyInstance, deps: AppDeps) {
  app.get<DidParams>(
    "/verifier/:tenantId/:environment/did.json",
    oauthErrors("invalid_request"),
    (request, reply) =>
      verifierHandler(request, reply, async () => {
        const document = await serveVerifierDidDocument(
          deps,
          request.params.tenantId,
          request.params.environment,
        );
        return reply
          .code(200)
          .headers({ "cache-control": "public, max-age=300" })
          .type("application/did+json")
          .send(JSON.stringify(document));
      }),
  );
}
