/**
 * Whether OpenTelemetry tracing is asked for, from the standard OTEL_* variables. Read by the entry points
 * before anything else loads (preload.ts) and by env.ts; kept free of imports so that reading it loads
 * nothing. Tracing is on when a trace exporter or an OTLP endpoint is named and the SDK is not disabled:
 * OTEL_SERVICE_NAME alone (or nothing) leaves it off, so no SDK starts and nothing is sent.
 */
export interface TracingEnv {
  enabled: boolean;
  /** OTEL_SERVICE_NAME when set (the SDK reads it too); otherwise the entry point's own name is used. */
  serviceName: string | undefined;
  /**
   * OTEL_METRICS_EXPORTER names an exporter: only then does the SDK record OpenTelemetry metrics too (by
   * default it would, a histogram per request and statement, beside the Prometheus /metrics of its own).
   */
  otelMetrics: boolean;
}

type Source = Record<string, string | undefined>;

export function tracingEnv(source: Source): TracingEnv {
  const value = (name: string) => source[name]?.trim() || undefined;
  const serviceName = value("OTEL_SERVICE_NAME");
  const metricExporters = (value("OTEL_METRICS_EXPORTER") ?? "").toLowerCase();
  const otelMetrics = metricExporters !== "" && metricExporters !== "none";
  if (value("OTEL_SDK_DISABLED")?.toLowerCase() === "true")
    return { enabled: false, serviceName, otelMetrics };
  const exporters = (value("OTEL_TRACES_EXPORTER") ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  if (exporters.includes("none")) return { enabled: false, serviceName, otelMetrics };
  const endpoint = value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") ?? value("OTEL_EXPORTER_OTLP_ENDPOINT");
  return { enabled: exporters.length > 0 || endpoint !== undefined, serviceName, otelMetrics };
}
