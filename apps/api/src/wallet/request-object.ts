import type { AppDeps } from "@cred/core";
import { serveRequestObject } from "@cred/core/wallet";
import { REQUEST_OBJECT_CONTENT_TYPE, VpError } from "@cred/oid4vc";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { requestDeps } from "../tracing/request-spans";
import { oauthErrors } from "./oauth-reply";
import { HANDLE, type HandleParams, unknownRequest, verifierHandler } from "./verifier-reply";

/**
 * The request_uri endpoint (OpenID4VP §5.10), unauthenticated: `GET|POST /verifier/requests/{state}`
 * answers the signed request object (`application/oauth-authz-req+jwt`, `no-store`); POST takes a form
 * (only) with `wallet_nonce` and `wallet_metadata` (request_uri_method=post).
 */
export function registerRequestObject(app: FastifyInstance, deps: AppDeps) {
  app.get<HandleParams>("/verifier/requests/:handle", oauthErrors("invalid_request"), (request, reply) => {
    if (!HANDLE.test(request.params.handle)) return unknownRequest(reply, 404);
    return verifierHandler(request, reply, async () =>
      sendRequestObject(reply, await serveRequestObject(requestDeps(request, deps), request.params.handle)),
    );
  });
  app.post<HandleParams>("/verifier/requests/:handle", oauthErrors("invalid_request"), (request, reply) => {
    if (!HANDLE.test(request.params.handle)) return unknownRequest(reply, 404);
    return verifierHandler(request, reply, async () =>
      sendRequestObject(
        reply,
        await serveRequestObject(requestDeps(request, deps), request.params.handle, requestUriForm(request)),
      ),
    );
  });
}

function sendRequestObject(reply: FastifyReply, jwt: string) {
  return reply.code(200).headers({ "cache-control": "no-store" }).type(REQUEST_OBJECT_CONTENT_TYPE).send(jwt);
}

/** The form body of a request_uri POST; any other body (JSON, none) is 400 `invalid_request` (§5.10.1). */
function requestUriForm(request: FastifyRequest): URLSearchParams {
  if (request.body instanceof URLSearchParams) return request.body;
  throw new VpError(
    "invalid_request",
    "send the request_uri POST as application/x-www-form-urlencoded (OpenID4VP 5.10.1)",
  );
}
