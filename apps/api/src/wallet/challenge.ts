import type { AppDeps } from "@cred/core";
import { attestationChallengesOf } from "@cred/core/wallet";
import type { FastifyInstance } from "fastify";
import { notFound, oauthErrors } from "./oauth-reply";
import { NO_STORE } from "./response-headers";
import { noSuchIssuer, withIssuingIssuer } from "./wallet-issuer";

/** draft-ietf-oauth-attestation-based-client-auth §8.1: where the issuer requires attestation challenges. */
export function registerChallenge(app: FastifyInstance, deps: AppDeps) {
  app.post(
    "/issuers/:issuerId/challenge",
    oauthErrors("invalid_request"),
    withIssuingIssuer(
      deps,
      async (issuer, _request, reply, deps) => {
        const challenges = attestationChallengesOf(deps.secretBox, issuer);
        if (!challenges) return notFound(reply, "The challenge endpoint");
        reply.headers(NO_STORE);
        return { attestation_challenge: challenges.issue() };
      },
      noSuchIssuer("invalid_request", 404),
    ),
  );
}
