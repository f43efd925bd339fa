import { type AppDeps, isUnstorableTextViolation, UNSTORABLE_TEXT_MESSAGE } from "@cred/core";
import { receiveWalletResponse } from "@cred/core/verification/receive-wallet-response";
import { serveRequestObject } from "@cred/core/verification/serve-request-object";
import { OAuthError, REQUEST_OBJECT_CONTENT_TYPE, VpError } from "@cred/oid4vc";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { sendOAuthError } from "./oauth-error-reply";
import { oauthErrors } from "./oauth-reply";

type HandleParams = { Params: { handle: string } };

const HANDLE = /^[A-Za-z0-9_-]{16,128}$/;

function formOf(request: FastifyRequest): URLSearchParams | undefined {
  return request.body instanceof URLSearchParams ? request.body : undefined;
}

/** The form body of a request_uri POST; any other body (JSON, none) is 400 `invalid_request` (§5.10.1). */
function requestUriForm(request: FastifyRequest): URLSearchParams {
  const form = formOf(request);
  if (form) return form;
  throw new VpError(
    "invalid_request",
    "send the request_uri POST as application/x-www-form-urlencoded (OpenID4VP 5.10.1)",
  );
}

/** What a verifier endpoint answers a wallet: 200, `no-store`, its media type. */
interface VerifierAnswer {
  contentType: string;
  body: string;
}

function send(reply: FastifyReply, answer: VerifierAnswer) {
  reply.headers({ "cache-control": "no-store" });
  return reply.code(200).type(answer.contentType).send(answer.body);
}

const requestObject = (jwt: string): VerifierAnswer => ({
  contentType: REQUEST_OBJECT_CONTENT_TYPE,
  body: jwt,
});

/** OAuth-shaped error (`{ error, error_description }`) for the wallet; anything unexpected is a 500 server_error. */
async function guarded(request: FastifyRequest, reply: FastifyReply, run: () => Promise<VerifierAnswer>) {
  try {
    return send(reply, await run());
  } catch (error) {
    if (error instanceof OAuthError) return sendOAuthError(reply, error);
    // Text the database cannot store, from inside the wallet's response (http/storable-text.ts refuses
    // it in the form itself).
    if (isUnstorableTextViolation(error)) {
      return sendOAuthError(reply, new OAuthError("invalid_request", UNSTORABLE_TEXT_MESSAGE));
    }
    request.log.error({ err: error }, "verifier endpoint failed");
    return reply
      .code(500)
      .type("application/json")
      .send({ error: "server_error", error_description: "an unexpected error occurred" });
  }
}

const unknownRequest = (reply: FastifyReply, status: number) =>
  reply
    .code(status)
    .type("application/json")
    .send({ error: "invalid_request", error_description: "unknown request" });

/**
 * OpenID4VP verifier endpoints (unauthenticated, wallet-facing):
 * - `GET|POST /verifier/requests/{state}`: the signed request object (`application/oauth-authz-req+jwt`);
 *   POST takes a form (only) with `wallet_nonce` and `wallet_metadata` (request_uri_method=post);
 * - `POST /verifier/responses/{state}`: the response endpoint (`direct_post` / `direct_post.jwt`, form).
 */
export function registerVerificationWalletRoutes(app: FastifyInstance, deps: AppDeps) {
  app.get<HandleParams>("/verifier/requests/:handle", oauthErrors("invalid_request"), (request, reply) => {
    if (!HANDLE.test(request.params.handle)) return unknownRequest(reply, 404);
    return guarded(request, reply, async () =>
      requestObject(await serveRequestObject(deps, request.params.handle)),
    );
  });
  app.post<HandleParams>("/verifier/requests/:handle", oauthErrors("invalid_request"), (request, reply) => {
    if (!HANDLE.test(request.params.handle)) return unknownRequest(reply, 404);
    return guarded(request, reply, async () =>
      requestObject(await serveRequestObject(deps, request.params.handle, requestUriForm(request))),
    );
  });
  app.post<HandleParams>("/verifier/responses/:handle", oauthErrors("invalid_request"), (request, reply) => {
    if (!HANDLE.test(request.params.handle)) return unknownRequest(reply, 400);
    return guarded(request, reply, async () => {
      const { redirectUri } = await receiveWalletResponse(deps, request.params.handle, formOf(request));
      const body = redirectUri === undefined ? {} : { redirect_uri: redirectUri };
      return { contentType: "application/json", body: JSON.stringify(body) };
    });
  });
}
