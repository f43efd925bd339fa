import { describe, expect, it } from "vitest";
import { tracingEnv } from "./tracing-env";

describe("OpenTelemetry metrics beside the traces (OTEL_METRICS_EXPORTER)", () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };

  it("off unless an exporter is named: /metrics (Prometheus) is the platform's own", () => {
    expect(tracingEnv(endpoint).otelMetrics).toBe(false);
    expect(tracingEnv({ ...endpoint, OTEL_METRICS_EXPORTER: " " }).otelMetrics).toBe(false);
    expect(tracingEnv({ ...endpoint, OTEL_METRICS_EXPORTER: "none" }).otelMetrics).toBe(false);
    expect(tracingEnv({ ...endpoint, OTEL_METRICS_EXPORTER: "NONE" }).otelMetrics).toBe(false);
  });

  it("on when named", () => {
    expect(tracingEnv({ ...endpoint, OTEL_METRICS_EXPORTER: "otlp" }).otelMetrics).toBe(true);
    expect(tracingEnv({ ...endpoint, OTEL_METRICS_EXPORTER: "console,otlp" }).otelMetrics).toBe(true);
  });
});
