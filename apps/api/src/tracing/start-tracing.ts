import type { ContextManager } from "@opentelemetry/api";
import { NodeSDK } from "@opentelemetry/sdk-node";
import type { TracingEnv } from "./tracing-env";

/**
 * Starts the OpenTelemetry SDK, configured by the OTEL_* variables (exporter, endpoint, protocol,
 * sampler, propagators, batch delays), with no instrumentations and no context manager: the server
 * makes its spans itself and hands their parents down explicitly (request-spans.ts, trace-scope.ts,
 * webhook-attempt-span.ts). The http, fastify, pg and undici instrumentations patched modules as they
 * loaded (an ESM loader hook for the bundle's imports) and needed AsyncLocalStorage, whose promise hooks
 * on Node 20 cost more than all the spans together (docs/adr/0022-tracing-start.md, docs/performance.md).
 */
export async function startTracing(serviceName: string, settings: TracingEnv): Promise<void> {
  const sdk = new NodeSDK({
    serviceName,
    // null (which the SDK takes as "register none", though its type says otherwise): no
    // AsyncLocalStorage context manager; context.active() stays the root context.
    contextManager: null as unknown as ContextManager,
    instrumentations: [],
    // The SDK would otherwise also record and export OpenTelemetry metrics beside /metrics' own; only
    // when OTEL_METRICS_EXPORTER asks for them.
    ...(!settings.otelMetrics && { metricReaders: [] }),
  });
  sdk.start();
}
