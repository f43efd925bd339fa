import { ProxyTracerProvider, trace } from "@opentelemetry/api";

/**
 * Sends the spans still buffered (the batch processor holds them up to OTEL_BSP_SCHEDULE_DELAY), before
 * the process exits on a signal. Without tracing the provider is the no-op one and this does nothing.
 */
export async function flushTraces(): Promise<void> {
  const provider = trace.getTracerProvider();
  const delegate = provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
  const flushable = delegate as { forceFlush?: () => Promise<void> };
  await flushable.forceFlush?.().catch(() => {});
}
