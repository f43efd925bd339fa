import type { AppDeps } from "@cred/core";
import { receiveWalletResponse } from "@cred/core/wallet";
import type { FastifyInstance } from "fastify";
import { requestDeps } from "../tracing/request-spans";
import { oauthErrors } from "./oauth-reply";
import { HANDLE, type HandleParams, unknownRequest, verifierHandler } from "./verifier-reply";

/**
 * The response endpoint (OpenID4VP §8.2), unauthenticated: `POST /verifier/responses/{state}` takes
 * `direct_post` / `direct_post.jwt` (form) and answers 200 `{}`, or `{ redirect_uri }` where the policy
 * has a same-device redirect; `no-store`.
 */
export function registerResponse(app: FastifyInstance, deps: AppDeps) {
  app.post<HandleParams>("/verifier/responses/:handle", oauthErrors("invalid_request"), (request, reply) => {
    if (!HANDLE.test(request.params.handle)) return unknownRequest(reply, 400);
    return verifierHandler(request, reply, async () => {
      const form = request.body instanceof URLSearchParams ? request.body : undefined;
      const { redirectUri } = await receiveWalletResponse(
        requestDeps(request, deps),
        request.params.handle,
        form,
      );
      return reply
        .code(200)
        .headers({ "cache-control": "no-store" })
        .type("application/json")
        .send(JSON.stringify(redirectUri === undefined ? {} : { redirect_uri: redirectUri }));
    });
  });
}
