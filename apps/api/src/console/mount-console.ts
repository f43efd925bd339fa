import {
  type AppDeps,
  appRouter,
  createRequestContext,
  readSessionCookie,
  toErrorEnvelope,
} from "@cred/core";
import { fastifyRequestHandler } from "@trpc/server/adapters/fastify";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { throttleClient } from "../http/client-address";
import { assertStorableJson, hasSuspectEscape } from "../http/storable-text";
import { requestDeps } from "../tracing/request-spans";

export const CONSOLE_TRPC_PREFIX = "/trpc";
const CONSOLE_MAX_BATCH = 16;

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The console's tRPC endpoint (the same appRouter as REST). The console reaches it through its own
 * origin (a Next proxy), so the `cp_session` cookie is first-party. Only staff sessions authenticate
 * here: the Authorization header is ignored, so API keys keep using the REST planes.
 */
export function mountConsole(app: FastifyInstance, deps: AppDeps) {
  async function handler(request: FastifyRequest, reply: FastifyReply) {
    const path = (request.params as { "*": string })["*"] ?? "";
    assertStorableQueryInput(request);
    await fastifyRequestHandler({
      router: appRouter,
      // The console batches a page's few queries; a batch of hundreds (each a password hash, say) is not
      // a console's. The client's maxItems is the same (apps/console/src/lib/trpc.ts).
      maxBatchSize: CONSOLE_MAX_BATCH,
      req: request,
      res: reply,
      path,
      createContext: () =>
        createRequestContext(requestDeps(request, deps), {
          requestId: request.id,
          authorization: undefined,
          staffSessionToken: readSessionCookie(header(request, "cookie")),
          csrfToken: header(request, "x-csrf-token"),
          idempotencyKey: header(request, "idempotency-key"),
          // The browser's address: the console's proxy appends it to X-Forwarded-For (TRUST_PROXY).
          clientAddress: throttleClient(request.ip),
          clientRequestId: request.clientRequestId,
        }),
      responseMeta: ({ ctx, errors }) => {
        const headers: Record<string, string> = {
          "cache-control": "no-store",
          ...(ctx?.response.headers ?? {}),
        };
        if (errors.length === 0) return { headers };
        const shapes = errors.map((e) => toErrorEnvelope(e, request.id));
        // An error's own headers (Retry-After on 429) go out with it.
        for (const shape of shapes) Object.assign(headers, shape.headers ?? {});
        const statuses = shapes.map((shape) => shape.status);
        // A batch whose calls fail differently answers 207, as tRPC does; one failure keeps its status.
        const status = statuses.every((s) => s === statuses[0]) ? statuses[0] : 207;
        return { status, headers };
      },
      onError: ({ error }) => {
        if (toErrorEnvelope(error, request.id).status >= 500) {
          app.log.error({ err: error.cause ?? error, requestId: request.id }, "console operation failed");
        }
      },
    });
  }
  app.route({ method: ["GET", "POST"], url: `${CONSOLE_TRPC_PREFIX}/*`, handler });
}

/**
 * A query's input is JSON in the `input` parameter, whose escapes (`\u0000`) the URL check cannot see:
 * it gets the same check as a JSON body (a text that is not JSON is tRPC's to refuse).
 */
function assertStorableQueryInput(request: FastifyRequest) {
  const queryAt = request.url.indexOf("?");
  // Read as tRPC reads it (WHATWG URLSearchParams), not as Fastify's query parser does.
  const input = queryAt === -1 ? null : new URLSearchParams(request.url.slice(queryAt + 1)).get("input");
  if (input === null || !hasSuspectEscape(input)) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch {
    return;
  }
  assertStorableJson(parsed, "query", "input");
}
