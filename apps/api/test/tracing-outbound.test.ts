import http from "node:http";
import type { AddressInfo } from "node:net";
import { outboundGet } from "@cred/core/testing";
import { ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import { NodeSDK, tracing } from "@opentelemetry/sdk-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TraceScope } from "../src/tracing/trace-scope";
import { until } from "./fixtures/webhooks";

/**
 * Outbound fetches (external issuers' JWKS, remote status lists, type metadata) go through the SSRF
 * guard's own node:http requests: with tracing on they get a client span under the request's span (the
 * request's trace scope, handed down in its deps as `outboundTrace`) and carry its `traceparent`. In this
 * process, with an in-memory exporter and, as start-tracing.ts sets it up, no context manager; the full
 * server is traced in tracing.test.ts.
 */
const exporter = new tracing.InMemorySpanExporter();
const sdk = new NodeSDK({
  spanProcessors: [new tracing.SimpleSpanProcessor(exporter)],
  contextManager: null as never,
  instrumentations: [],
});
let server: http.Server;
let url: string;
const received: (string | undefined)[] = [];

beforeAll(async () => {
  sdk.start();
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
    const scope = new TraceScope(tracer, parent, ROOT_CONTEXT);
    await outboundGet(config, url, { accept: "application/json", maxBytes: 10_000, trace: scope.outbound });
    parent.end();
    const header = received.at(-1) ?? "";
    const [, traceId, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(header) ?? [];
    expect(traceId, header).toBe(parent.spanContext().traceId);
    // The client span ends once the body was read.
    const client = await until("the request's client span", async () =>
      exporter.getFinishedSpans().find((s) => s.spanContext().spanId === spanId),
    );
    expect(client.kind).toBe(SpanKind.CLIENT);
    expect(client.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
  });
});
