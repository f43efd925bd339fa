import type { IncomingMessage, RequestOptions } from "node:http";
import { register } from "node:module";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { createAddHookMessageChannel } from "import-in-the-middle";
import { incomingUrlAttributes, outgoingUrlFull } from "./span-urls";
import type { TracingEnv } from "./tracing-env";

/** `url.full` for a node:http request (post-webhook.ts and outbound-fetch.ts both name the protocol). */
function outgoingRequestUrl(request: RequestOptions): string {
  const protocol = request.protocol ?? "http:";
  const name = request.hostname ?? request.host ?? "localhost";
  const host = name.includes(":") && !name.startsWith("[") ? `[${name}]` : name;
  const origin = `${protocol}//${host}${request.port ? `:${request.port}` : ""}`;
  try {
    return outgoingUrlFull(new URL(request.path ?? "/", origin));
  } catch {
    return origin;
  }
}

/** Probes and scrapes: no trace for each of them. */
const UNTRACED_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * Starts the OpenTelemetry SDK (configured by the OTEL_* variables: exporter, endpoint, protocol,
 * sampler, batch delays) with the http, pg and undici instrumentations (route-spans.ts in place of the
 * fastify one). The server's registry packages are ES module imports (the bundle loads them by path), which only an ESM loader hook can
 * patch: import-in-the-middle's, told through a message channel to wrap just the modules an
 * instrumentation asks for, rather than every module the process loads.
 */
export async function startTracing(serviceName: string, settings: TracingEnv): Promise<void> {
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register("import-in-the-middle/hook.mjs", import.meta.url, registerOptions);
  const sdk = new NodeSDK({
    serviceName,
    // The SDK would otherwise also record and export OpenTelemetry metrics (a histogram per request and
    // per statement) beside /metrics' own; only when OTEL_METRICS_EXPORTER asks for them.
    ...(!settings.otelMetrics && { metricReaders: [] }),
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request: IncomingMessage) =>
          UNTRACED_PATHS.has((request.url ?? "").split("?")[0] ?? ""),
        // No handles, query values or tokens in exported spans (span-urls.ts).
        startIncomingSpanHook: (request: IncomingMessage) => incomingUrlAttributes(request.url ?? "/"),
        startOutgoingSpanHook: (request: RequestOptions) => ({ "url.full": outgoingRequestUrl(request) }),
      }),
      // No fastify instrumentation: its span around every hook and handler was most of a request's spans;
      // route-spans.ts names the request's span by its route instead, and wallet-steps.ts adds the step.
      // Statements outside a request or a webhook attempt (the worker's polling) would each be a trace;
      // a statement's span is enough without one more for each checkout from the pool.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      new UndiciInstrumentation({
        requireParentforSpans: true,
        startSpanHook: (request: { origin: string; path: string }) => ({
          "url.full": outgoingUrlFull(new URL(request.path, request.origin)),
        }),
      }),
    ],
  });
  sdk.start();
  await waitForAllMessagesAcknowledged();
}
