import { type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import type { FastifyInstance, RouteHandlerMethod } from "fastify";
import { WALLET_ENDPOINTS } from "../metrics/labels";

/**
 * The span name for a wallet endpoint's route (undefined for other routes, and for CORS preflights):
 * `wallet <endpoint>`, with the endpoint names the metrics use (metrics/labels.ts), e.g. `wallet token`,
 * `wallet pushed_authorization_request`, `wallet credential`, `wallet request_object`, `wallet direct_post`.
 */
export function walletStepSpanName(method: string, url: string): string | undefined {
  const endpoint = WALLET_ENDPOINTS[url];
  return endpoint && method !== "OPTIONS" ? `wallet ${endpoint}` : undefined;
}

function ended<T>(span: Span, result: T): T {
  if (result && typeof (result as { then?: unknown }).then === "function") {
    return (result as unknown as Promise<unknown>).then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        failed(span, error);
        throw error;
      },
    ) as T;
  }
  span.end();
  return result;
}

function failed(span: Span, error: unknown) {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/**
 * Wraps the handler of every wallet endpoint route registered after this call in its span (inside the
 * request's HTTP span), so a trace view shows the wallet step by name and how long its own work took. Only when tracing
 * is on (server.ts): otherwise the handlers stay as they are.
 */
export function traceWalletSteps(app: FastifyInstance) {
  const tracer = trace.getTracer("@cred/api");
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const name = walletStepSpanName(methods[0] ?? "", route.url);
    if (!name) return;
    const handler = route.handler as (...args: unknown[]) => unknown;
    route.handler = function (this: FastifyInstance, ...args: unknown[]) {
      return tracer.startActiveSpan(
        name,
        { attributes: { "wallet.endpoint": WALLET_ENDPOINTS[route.url] } },
        (span) => {
          try {
            return ended(span, handler.apply(this, args));
          } catch (error) {
            failed(span, error);
            throw error;
          }
        },
      );
    } as RouteHandlerMethod;
  });
}
