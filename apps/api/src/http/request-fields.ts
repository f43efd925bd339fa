import type { FastifyInstance } from "fastify";
import type { TraceScope } from "../tracing/trace-scope";

declare module "fastify" {
  interface FastifyRequest {
    /** The caller's `x-ms-client-request-id`, when it is short and header-safe (http/request-ids.ts). */
    clientRequestId?: string;
    /** REST: the operation id of the procedure that answered (rest/mount-rest.ts), for the metrics. */
    metricsOperation?: string;
    /** Wallet endpoints: the OAuth error code answered (wallet/oauth-error-reply.ts), for the metrics. */
    oauthError?: string;
    /** The request's trace scope when tracing is on (tracing/request-spans.ts); its spans hang there. */
    traceScope?: TraceScope;
  }
}

/** Every field the server's hooks and handlers set on a request (the declarations above). */
export const REQUEST_FIELDS = ["clientRequestId", "metricsOperation", "oauthError", "traceScope"] as const;

/**
 * Declares the request fields on Fastify's request class, so that each request is built with all of them
 * (unset) instead of gaining them as hooks and handlers set them. A request that gains a field changes its
 * hidden class: the code every request goes through (Fastify's getters, the hooks, the reply) then sees
 * requests of several shapes, and V8 compiles it again and answers its property reads from slower,
 * polymorphic caches. Before any hook or route is registered: plugins registered earlier keep the
 * request class they were given. `request-fields.test.ts` fails on a field set in src/ but missing here.
 */
export function declareRequestFields(app: FastifyInstance) {
  for (const field of REQUEST_FIELDS) app.decorateRequest(field, undefined);
}
