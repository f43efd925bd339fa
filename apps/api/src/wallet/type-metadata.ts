import type { AppDeps } from "@cred/core";
import { servedTypeMetadata } from "@cred/core/wallet";
import type { FastifyInstance } from "fastify";
import { notFound } from "./oauth-reply";
import { withIssuer } from "./wallet-issuer";

/** SD-JWT VC §7.5.1: Type Metadata at the `vct` URL of the configurations whose type is the default one. */
export function registerTypeMetadata(app: FastifyInstance, deps: AppDeps) {
  app.get(
    "/issuers/:issuerId/credentials/:identifier",
    withIssuer(deps, async (issuer, request, reply, deps) => {
      const { identifier } = request.params as { identifier: string };
      const text = await servedTypeMetadata(deps, deps.database.root, issuer, identifier);
      if (text === null) return notFound(reply, "The credential type");
      // The text as it is: a pinned document's `vct#integrity` hashes exactly these octets.
      reply.headers({ "Cache-Control": "max-age=300", "Access-Control-Allow-Origin": "*" });
      return reply.type("application/json; charset=utf-8").send(text);
    }),
  );
}
