import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

const CLIENT_ID_MAX = 128;
const HEADER_SAFE = /^[\x20-\x7e]+$/;

/** Echoes a caller-supplied id only when it is short and header-safe; otherwise drops it. */
export function sanitiseClientId(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  const trimmed = v.trim();
  return trimmed.length > 0 && trimmed.length <= CLIENT_ID_MAX && HEADER_SAFE.test(trimmed)
    ? trimmed
    : undefined;
}

/**
 * `x-ms-request-id` on every response; `x-ms-client-request-id` echoed; on the Product plane also
 * `X-Correlation-Id` (echoed or generated) and `X-Request-Id`. Answers Fastify gives before its hooks
 * run (http/protocol-errors.ts) set them with `setRequestIdHeaders` too.
 */
export function registerRequestIds(app: FastifyInstance) {
  app.addHook("onRequest", async (request, reply) => setRequestIdHeaders(request, reply));
}

export function setRequestIdHeaders(request: FastifyRequest, reply: FastifyReply) {
  reply.header("x-ms-request-id", request.id);
  const clientId = sanitiseClientId(request.headers["x-ms-client-request-id"]);
  if (clientId) {
    request.clientRequestId = clientId;
    reply.header("x-ms-client-request-id", clientId);
  }
  if (request.url.startsWith("/v1.0/")) {
    reply.header("X-Correlation-Id", sanitiseClientId(request.headers["x-correlation-id"]) ?? randomUUID());
    reply.header("X-Request-Id", request.id);
  }
}

export const genRequestId = () => randomUUID();
