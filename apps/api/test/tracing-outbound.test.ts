import http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { outboundGet } from "@cred/core/testing";
import { context, SpanKind, trace } from "@opentelemetry/api";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { NodeSDK, tracing } from "@opentelemetry/sdk-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "./fixtures/webhooks";

/**
 * Outbound fetches (external issuers' JWKS, remote status lists, type metadata) go through the SSRF
 * guard's own node:http requests: with tracing on (the http instrumentation, as start-tracing.ts sets
 * it up) they carry the active span's `traceparent`. In this process, with an in-memory exporter; the
 * full server is traced in tracing.test.ts.
 */
const exporter = new tracing.InMemorySpanExporter();
const sdk = new NodeSDK({
  spanProcessors: [new tracing.SimpleSpanProcessor(exporter)],
  instrumentations: [new HttpInstrumentation()],
});
let server: http.Server;
let url: string;
const received: (string | undefined)[] = [];

beforeAll(async () => {
  sdk.start();
  // The instrumentation patches node:http when it is next required (outbound-fetch.ts imported it first).
  createRequire(import.meta.url)("node:http");
  server = http.createServer((req, res) => {
    received.push(req.headers.traceparent as string | undefined);
    res.writeHead(200, { "content-type": "application/json" }).end('{"keys":[]}');
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await sdk.shutdown();
});

const config = { developmentMode: true, webhookAllowedHosts: ["127.0.0.1"] };

describe("outbound fetches under tracing", () => {
  it("send traceparent naming the caller's trace, from a client span of its own", async () => {
    const tracer = trace.getTracer("test");
    const parent = tracer.startSpan("verification");
    await context.with(trace.setSpan(context.active(), parent), () =>
      outboundGet(config, url, { accept: "application/json", maxBytes: 10_000 }),
    );
    parent.end();
    const header = received.at(-1) ?? "";
    const [, traceId, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(header) ?? [];
    expect(traceId, header).toBe(parent.spanContext().traceId);
    // The client span ends as its socket closes, just after the body was read.
    const client = await until("the request's client span", async () =>
      exporter.getFinishedSpans().find((s) => s.spanContext().spanId === spanId),
    );
    expect(client.kind).toBe(SpanKind.CLIENT);
    expect(client.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
  });
});
