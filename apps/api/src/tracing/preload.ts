import { tracingEnv } from "./tracing-env";

/**
 * Starts OpenTelemetry when the OTEL_* variables ask for it, before the caller loads the server, so the
 * SDK's tracer provider and propagators are registered before the server's first span (there are no
 * instrumentations to patch modules as they load: ADR 0022). The entry points (main.ts, worker-main.ts)
 * call this first and import the rest afterwards. When tracing is off the SDK is not even loaded. In the
 * bundle (scripts/build.mjs) start-tracing is a file of its own, so its imports run only here.
 */
export async function startTracingIfAsked(defaultServiceName: string): Promise<void> {
  // The one other place that reads process.env: this runs before env.ts may be loaded (STYLE.md).
  const settings = tracingEnv(process.env);
  if (!settings.enabled) return;
  const { startTracing } = await import("./start-tracing");
  await startTracing(settings.serviceName ?? defaultServiceName, settings);
}
