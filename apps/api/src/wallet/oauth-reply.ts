import { isOAuthError } from "@cred/oid4vc";
import type { FastifyReply, FastifyRequest } from "fastify";

/** Wallet endpoints answer errors in the OAuth shape (`error`, `error_description`), not the REST envelope. */
export function walletHandler<T>(handler: (request: FastifyRequest, reply: FastifyReply) => Promise<T>) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      return await handler(request, reply);
    } catch (error) {
      if (!isOAuthError(error)) throw error;
      reply.headers(error.headers ?? {});
      return reply.code(error.status).type("application/json").send(error.toJSON());
    }
  };
}

export function notFound(reply: FastifyReply, what: string) {
  return reply
    .code(404)
    .type("application/json")
    .send({ error: { code: "NotFound", message: `${what} was not found.`, requestId: reply.request.id } });
}
