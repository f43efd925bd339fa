import type { IncomingHttpHeaders } from "node:http";
import {
  type AppDeps,
  appRouter,
  createCallerFactory,
  createRequestContext,
  toErrorEnvelope,
} from "@cred/core";
import { getTRPCErrorFromUnknown } from "@trpc/server";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { sendError, sendErrorEnvelope } from "../http/errors";
import { requestDeps } from "../tracing/request-spans";
import { ndjsonBody } from "./ndjson-body";
import { operationInput } from "./operation-input";
import { methodsForPath, operationFor } from "./operations";

/** Bodies the REST planes take (application/merge-patch+json for PATCH, RFC 7396). */
const JSON_MEDIA_TYPES = new Set(["application/json", "application/merge-patch+json"]);

export const SUPPORTED_API_VERSION = "2026-08-30";

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

const createCaller = createCallerFactory(appRouter);

type ProcedureCall = (input: unknown) => Promise<unknown>;

/**
 * Serves the Product (/v1.0) and Management (/management) planes from the procedures' meta
 * (operations.ts): each request runs its procedure through a server-side caller, and the answer is
 * the procedure's result with the status and headers it set, or the ErrorEnvelope (errors.ts).
 */
export function mountRest(app: FastifyInstance, deps: AppDeps) {
  async function run(request: FastifyRequest, reply: FastifyReply, hasBody: boolean) {
    const url = new URL(request.url.startsWith("/") ? `http://127.0.0.1${request.url}` : request.url);
    const found = operationFor(request.method, url.pathname);
    if (!found) return sendError(reply, "RouteNotFound", "No operation matches this path.");
    const { operation, pathInput } = found;
    request.metricsOperation = operation.meta.openapi?.operationId ?? operation.procedurePath;
    let ctx: Awaited<ReturnType<typeof createRequestContext>> | undefined;
    try {
      const input = operationInput(
        operation.procedure,
        { method: request.method, url, body: hasBody ? (request.body ?? {}) : undefined },
        pathInput,
      );
      ctx = await createRequestContext(requestDeps(request, deps), {
        requestId: request.id,
        authorization: header(request.headers, "authorization"),
        staffSessionToken: undefined,
        csrfToken: undefined,
        idempotencyKey: header(request.headers, "idempotency-key"),
        clientAddress: request.ip,
        clientRequestId: request.clientRequestId,
      });
      const call = operation.procedurePath
        .split(".")
        .reduce<any>((at, segment) => at[segment], createCaller(ctx)) as ProcedureCall;
      const data = await call(input);
      reply.headers(ctx.response.headers);
      if (operation.meta.responseMediaType === "application/x-ndjson") {
        const body = await ndjsonBody(data as AsyncIterable<unknown[]>);
        return reply.code(200).type("application/x-ndjson").send(body);
      }
      return reply
        .code(ctx.response.status ?? 200)
        .type("application/json")
        .send(JSON.stringify(data));
    } catch (cause) {
      const error = getTRPCErrorFromUnknown(cause);
      const rendered = toErrorEnvelope(error, request.id);
      // A DomainError reaches tRPC as INTERNAL_SERVER_ERROR too; only what answers 5xx is a failure to log.
      if (rendered.status >= 500) {
        app.log.error({ err: error.cause ?? error, requestId: request.id }, "operation failed");
      }
      // What the operation set before it failed (rate-limit headers) goes out with the error.
      if (ctx) reply.headers(ctx.response.headers);
      return sendErrorEnvelope(reply, rendered);
    }
  }

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
    return run(request, reply, hasBody);
  }

  for (const prefix of ["/v1.0/*", "/management/*"]) {
    app.route({ method: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"], url: prefix, handler: serve });
  }
}
