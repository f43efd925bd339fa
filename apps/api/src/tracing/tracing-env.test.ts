import { describe, expect, it } from "vitest";
import { tracingEnv } from "./tracing-env";
import { walletStepSpanName } from "./wallet-steps";

describe("whether tracing starts (OTEL_* variables)", () => {
  it("off when nothing names an exporter or endpoint (no SDK is loaded)", () => {
    expect(tracingEnv({})).toEqual({ enabled: false, serviceName: undefined, otelMetrics: false });
    expect(tracingEnv({ OTEL_SERVICE_NAME: "api" })).toEqual({
      enabled: false,
      serviceName: "api",
      otelMetrics: false,
    });
    expect(tracingEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: " ", OTEL_TRACES_EXPORTER: "" }).enabled).toBe(false);
  });

  it("on with an OTLP endpoint (any or the traces one) or a named trace exporter", () => {
    expect(tracingEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }).enabled).toBe(true);
    expect(tracingEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/v1/traces" }).enabled).toBe(true);
    expect(tracingEnv({ OTEL_TRACES_EXPORTER: "otlp" }).enabled).toBe(true);
    expect(tracingEnv({ OTEL_TRACES_EXPORTER: "console" }).enabled).toBe(true);
  });

  it("off when disabled, or the trace exporter is none, whatever else is set", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    expect(tracingEnv({ ...endpoint, OTEL_SDK_DISABLED: "true" }).enabled).toBe(false);
    expect(tracingEnv({ ...endpoint, OTEL_SDK_DISABLED: "TRUE" }).enabled).toBe(false);
    expect(tracingEnv({ ...endpoint, OTEL_SDK_DISABLED: "false" }).enabled).toBe(true);
    expect(tracingEnv({ ...endpoint, OTEL_TRACES_EXPORTER: "none" }).enabled).toBe(false);
  });
});

describe("wallet step span names", () => {
  it("name each wallet endpoint as the metrics do; other routes and preflights get none", () => {
    expect(walletStepSpanName("POST", "/issuers/:issuerId/token")).toBe("wallet token");
    expect(walletStepSpanName("POST", "/issuers/:issuerId/par")).toBe("wallet pushed_authorization_request");
    expect(walletStepSpanName("POST", "/verifier/responses/:handle")).toBe("wallet direct_post");
    expect(walletStepSpanName("GET", "/verifier/requests/:handle")).toBe("wallet request_object");
    expect(walletStepSpanName("OPTIONS", "/issuers/:issuerId/token")).toBeUndefined();
    expect(walletStepSpanName("GET", "/v1.0/issuers")).toBeUndefined();
  });
});
