import { isOAuthError } from "@cred/oid4vc";
import type { FastifyReply, FastifyRequest } from "fastify";
import { sendOAuthError } from "./oauth-error-reply";

/** Wallet endpoints answer errors in the OAuth shape (`error`, `error_description`), not the REST envelope. */
export function walletHandler<T>(handler: (request: FastifyRequest, reply: FastifyReply) => Promise<T>) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      return await handler(request, reply);
    } catch (error) {
      if (!isOAuthError(error)) throw error;
      return sendOAuthError(reply, error);
    }
  };
}

export function notFound(reply: FastifyReply, what: string) {
  return reply
    .code(404)
    .type("application/json")
    .send({ error: { code: "NotFound", message: `${what} was not found.`, requestId: reply.request.id } });
}

/**
 * Route options of a wallet endpoint: failures before its handler runs (malformed JSON, a content type
 * it does not take, a body over the limit) answer in the OAuth shape with this error code, status 400
 * and `no-store`, as the endpoint's own errors do (OpenID4VCI §8.3.1.2, §11.3; RFC 6749 §5.2), instead
 * of the REST envelope (http/errors.ts reads it).
 */
export function oauthErrors(code: string) {
  return { config: { oauthErrorCode: code } };
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** Wallet endpoints: the OAuth error code of failures before the handler (`oauthErrors`). */
    oauthErrorCode?: string;
  }
}
