import type { IncomingHttpHeaders } from "node:http";
import { type AppDeps, appRouter, createRequestContext, toErrorEnvelope } from "@cred/core";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import { sendError } from "../http/errors";
import { methodsForPath } from "./operations";

/** Bodies the REST planes take (application/merge-patch+json for PATCH, RFC 7396). */
const JSON_MEDIA_TYPES = new Set(["application/json", "application/merge-patch+json"]);

export const SUPPORTED_API_VERSION = "2026-08-30";

interface CapturedResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

interface ShimRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body?: unknown;
  requestId: string;
  on: typeof noop;
  once: typeof noop;
  off: typeof noop;
}

const noop = () => {};

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Serves the Product (/v1.0) and Management (/management) planes through trpc-to-openapi, owning
 * the response: every error leaves as the documented ErrorEnvelope, never the library's default body.
 */
export function mountRest(app: FastifyInstance, deps: AppDeps) {
  const handle = createOpenApiNodeHttpHandler({
    router: appRouter,
    maxBodySize: 1024 * 1024,
    createContext: ({ req }: { req: ShimRequest }) =>
      createRequestContext(deps, {
        requestId: req.requestId,
        authorization: header(req.headers, "authorization"),
        staffSessionToken: undefined,
        csrfToken: undefined,
        idempotencyKey: header(req.headers, "idempotency-key"),
      }),
    responseMeta: ({ ctx, errors }: any) => ({
      status: errors.length ? undefined : (ctx?.response.status ?? 200),
      headers: ctx?.response.headers ?? {},
    }),
    onError: ({ error, req }: any) => {
      // A DomainError reaches tRPC as INTERNAL_SERVER_ERROR too; only what answers 5xx is a failure to log.
      if (toErrorEnvelope(error, req?.requestId ?? "unknown").status >= 500) {
        app.log.error({ err: error.cause ?? error, requestId: req?.requestId }, "operation failed");
      }
    },
  } as any) as unknown as (req: ShimRequest, res: unknown, next: () => void) => Promise<void>;

  async function serve(request: FastifyRequest, reply: FastifyReply) {
    const [pathname] = request.url.split("?");
    const path = pathname ?? request.url;
    // RFC 9110 §9.3.7: OPTIONS tells the methods of the path (no api-version or key needed to ask).
    if (request.method === "OPTIONS") {
      const methods = methodsForPath(path);
      if (methods.length === 0) return sendError(reply, "RouteNotFound", "No operation matches this path.");
      return reply
        .code(204)
        .header("Allow", ["OPTIONS", ...methods].join(", "))
        .send();
    }
    if (path.startsWith("/management/")) {
      const version = (request.query as Record<string, unknown>)["api-version"];
      if (version === undefined || version === "") {
        return sendError(
          reply,
          "MissingApiVersion",
          `Add the query parameter api-version=${SUPPORTED_API_VERSION}.`,
        );
      }
      if (version !== SUPPORTED_API_VERSION) {
        return sendError(
          reply,
          "UnsupportedApiVersion",
          `api-version '${String(version).slice(0, 40)}' is not supported; use ${SUPPORTED_API_VERSION}.`,
        );
      }
    }
    const methods = methodsForPath(path);
    if (!methods.includes(request.method)) {
      if (methods.length === 0) return sendError(reply, "RouteNotFound", "No operation matches this path.");
      reply.header("Allow", methods.join(", "));
      return sendError(reply, "MethodNotAllowed", `Use one of: ${methods.join(", ")}.`);
    }

    const hasBody = request.method !== "GET" && request.method !== "DELETE";
    // Fastify also parses text/plain and (for the wallet endpoints) forms; the REST planes take JSON only.
    const mediaType = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (hasBody && request.body !== undefined && request.body !== "" && !JSON_MEDIA_TYPES.has(mediaType)) {
      return sendError(reply, "UnsupportedMediaType", "Send the request body as application/json.");
    }
    const shim: ShimRequest = {
      method: request.method,
      url: request.url,
      headers: hasBody ? { ...request.headers, "content-type": "application/json" } : request.headers,
      requestId: request.id,
      on: noop,
      once: noop,
      off: noop,
    };
    if (hasBody) shim.body = request.body ?? {};
    const captured: CapturedResponse = { statusCode: 200, headers: {}, body: "" };
    const res = {
      set statusCode(code: number) {
        captured.statusCode = code;
      },
      get statusCode() {
        return captured.statusCode;
      },
      setHeader(name: string, value: string) {
        captured.headers[name] = value;
      },
      end(body: string) {
        captured.body = body;
      },
      on: noop,
      once: noop,
      off: noop,
      writableEnded: true,
    };
    await handle(shim, res, () => {
      captured.statusCode = 404;
    });

    for (const [name, value] of Object.entries(captured.headers)) {
      if (name.toLowerCase() !== "content-type") reply.header(name, value);
    }
    if (captured.statusCode < 400) {
      return reply.code(captured.statusCode).type("application/json").send(captured.body);
    }
    const parsed = safeParse(captured.body);
    const data = parsed?.data as
      | { httpStatus: number; envelope: { error: Record<string, unknown> }; headers: Record<string, string> }
      | undefined;
    if (!data?.envelope) {
      return sendError(
        reply,
        "InternalError",
        "An unexpected error occurred. Quote the request id when contacting support.",
      );
    }
    reply.headers(data.headers ?? {});
    return reply
      .code(data.httpStatus)
      .type("application/json")
      .send({ error: { ...data.envelope.error, requestId: request.id } });
  }

  for (const prefix of ["/v1.0/*", "/management/*"]) {
    app.route({ method: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"], url: prefix, handler: serve });
  }
}

function safeParse(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
