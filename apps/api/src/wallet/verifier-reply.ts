import { isKeyCustodyUnavailable, isUnstorableTextViolation, UNSTORABLE_TEXT_MESSAGE } from "@cred/core";
import { OAuthError } from "@cred/oid4vc";
import type { FastifyReply, FastifyRequest } from "fastify";
import { sendOAuthError } from "./oauth-error-reply";

/** A verifier endpoint's path handle: the session's `state`. */
export const HANDLE = /^[A-Za-z0-9_-]{16,128}$/;

export type HandleParams = { Params: { handle: string } };

/** The answer to a handle that cannot be a session's, before any lookup. */
export const unknownRequest = (reply: FastifyReply, status: number) =>
  reply
    .code(status)
    .type("application/json")
    .send({ error: "invalid_request", error_description: "unknown request" });

/**
 * Runs a verifier endpoint: its OAuth errors (`{ error, error_description }`) through the one renderer;
 * text the database cannot store, from inside the wallet's response, as 400 `invalid_request`
 * (http/storable-text.ts refuses it in the form itself); anything unexpected as a 500 `server_error`.
 */
export async function verifierHandler(
  request: FastifyRequest,
  reply: FastifyReply,
  run: () => Promise<unknown>,
) {
  try {
    return await run();
  } catch (error) {
    if (error instanceof OAuthError) return sendOAuthError(reply, error);
    // The verifier's key is in a store (an HSM) that cannot be reached now: nothing was written, and
    // the wallet may fetch the same request again after Retry-After (docs/key-custody.md).
    if (isKeyCustodyUnavailable(error)) {
      request.log.warn({ reason: error.message }, "key store unreachable");
      reply.headers(error.headers ?? {});
      return sendOAuthError(
        reply,
        new OAuthError(
          "server_error",
          "The verifier's key is temporarily unavailable; retry after the time in Retry-After.",
          { status: 503 },
        ),
      );
    }
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
