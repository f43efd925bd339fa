import { SpanKind, trace } from "@opentelemetry/api";
import type { FastifyInstance, FastifyRequest, RouteHandlerMethod } from "fastify";
import { WALLET_ENDPOINTS } from "../metrics/labels";
import { failSpan } from "./trace-scope";

/**
 * The span name for a wallet endpoint's route (undefined for other routes, and for CORS preflights):
 * `wallet <endpoint>`, with the endpoint names the metrics use (metrics/labels.ts), e.g. `wallet token`,
 * `wallet pushed_authorization_request`, `wallet credential`, `wallet request_object`, `wallet direct_post`.
 */
export function walletStepSpanName(method: string, url: string): string | undefined {
  const endpoint = WALLET_ENDPOINTS[url];
  return endpoint && method !== "OPTIONS" ? `wallet ${endpoint}` : undefined;
}

/**
 * Wraps the handler of every wallet endpoint route registered after this call in its span, a child of
 * the request's (request-spans.ts), so a trace view shows the wallet step by name and how long its own
 * work took; while it runs, it is the parent of the request's statements and outbound requests. Only
 * when tracing is on (server.ts): otherwise the handlers stay as they are.
 */
export function traceWalletSteps(app: FastifyInstance) {
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const name = walletStepSpanName(methods[0] ?? "", route.url);
    if (!name) return;
    const attributes = { "wallet.endpoint": WALLET_ENDPOINTS[route.url] };
    const handler = route.handler as (
      this: FastifyInstance,
      request: FastifyRequest,
      reply: unknown,
    ) => unknown;
    // Fastify calls a handler with the request and the reply: passed on as they are (a rest array and a
    // spread call would cost every wallet request, sampled or not, an array and V8's slow call path).
    route.handler = function (this: FastifyInstance, request: FastifyRequest, reply: unknown) {
      const scope = request.traceScope;
      if (!scope?.recording) return handler.call(this, request, reply);
      const outer = scope.parent;
      const span = scope.startSpan(name, SpanKind.INTERNAL, attributes);
      scope.parent = trace.setSpan(outer, span);
      const finish = (error?: unknown) => {
        scope.parent = outer;
        if (error !== undefined) failSpan(span, error);
        span.end();
      };
      let result: unknown;
      try {
        result = handler.call(this, request, reply);
      } catch (error) {
        finish(error);
        throw error;
      }
      if (!(result instanceof Promise)) {
        finish();
        return result;
      }
      return result.then(
        (value) => {
          finish();
          return value;
        },
        (error: unknown) => {
          finish(error);
          throw error;
        },
      );
    } as RouteHandlerMethod;
  });
}
