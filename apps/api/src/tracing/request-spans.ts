import type { AppDeps } from "@cred/core";
import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { setLoggerSpan } from "./log-trace-ids";
import { incomingUrlAttributes } from "./span-urls";
import { TraceScope } from "./trace-scope";

/** Probes and scrapes: no trace for each of them. */
const UNTRACED_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

const SERVER_SPAN = { kind: SpanKind.SERVER };

/** Whether `headers` has any of `names` (a loop: no closure per request). */
function carriesAny(headers: FastifyRequest["headers"], names: string[]): boolean {
  for (const name of names) if (headers[name] !== undefined) return true;
  return false;
}

/**
 * The request's server span, started by the first `onRequest` hook and ended when the answer is sent:
 * named by route (`POST /issuers/:issuerId/token`), a child of the caller's span when the request
 * carries a W3C `traceparent` (the propagators of OTEL_PROPAGATORS). A request that starts a trace the
 * sampler drops gets nothing more. The span and its context are kept on the request
 * (`request.traceScope`), where the wallet step, the statements and the outbound requests of the
 * request find their parent, and on its logger, whose lines get the ids (log-trace-ids.ts). This
 * replaces the http and fastify instrumentations (ADR 0022).
 */
export function registerRequestSpans(app: FastifyInstance) {
  const tracer = trace.getTracer("@cred/api");
  const end = (request: FastifyRequest, status: number | undefined) => {
    const scope = request.traceScope;
    if (!scope) return;
    const span = scope.root;
    if (scope.recording) {
      if (status !== undefined) span.setAttribute("http.response.status_code", status);
      if (status === undefined || status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
    request.traceScope = undefined;
  };
  // The header names the propagators of OTEL_PROPAGATORS read, looked up on first use (the SDK sets the
  // global propagator when it starts, which may be after this registration).
  let fields: string[] | undefined;
  app.addHook("onRequest", (request, _reply, done) => {
    const url = request.url;
    const at = url.indexOf("?");
    if (UNTRACED_PATHS.has(at === -1 ? url : url.slice(0, at))) return done();
    const headers = request.headers;
    fields ??= propagation.fields();
    const joined = carriesAny(headers, fields);
    const parent = joined ? propagation.extract(ROOT_CONTEXT, headers) : ROOT_CONTEXT;
    // Named by the method until the sampler has decided: the samplers OTEL_TRACES_SAMPLER names decide
    // by trace id and parent, not by name, and an unsampled request needs no route name, attributes or
    // string building (fastify's routeOptions makes an object on each read).
    const span = tracer.startSpan(request.method, SERVER_SPAN, parent);
    // A trace this request would start and the sampler drops: its ids are made here and recorded nowhere,
    // so the request goes on as if tracing were off (no scope, no ids in its log lines, no traceparent on
    // its outbound requests: a service downstream decides for itself). The per-request work of such a
    // trace was most of what tracing cost at a low sampling ratio (docs/performance.md, Session 29). A
    // caller's trace, sampled or not, is joined below.
    const recording = span.isRecording();
    if (!joined && !recording) return done();
    if (recording) {
      const route = request.routeOptions.url;
      span.setAttributes({ "http.request.method": request.method, ...incomingUrlAttributes(url) });
      if (route !== undefined) {
        span.updateName(`${request.method} ${route}`);
        span.setAttribute("http.route", route);
      }
      // A request the client drops gets no onResponse: its span ends, failed, when the request closes
      // aborted. Only for a recorded span (an unrecorded one has nothing to end): fastify's onRequestAbort
      // hook would put a listener on every request, more than half of what an unsampled request costs.
      request.raw.once("close", () => {
        if (request.raw.aborted) end(request, undefined);
      });
    }
    request.traceScope = new TraceScope(tracer, span, parent);
    setLoggerSpan(request.log, span);
    done();
  });
  app.addHook("onResponse", (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
}

/** The deps a handler of this request uses: with a span per statement and outbound request when traced. */
export function requestDeps(request: FastifyRequest, deps: AppDeps): AppDeps {
  return request.traceScope ? request.traceScope.depsOf(deps) : deps;
}
