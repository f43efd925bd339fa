import http from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import type { AppDeps } from "@cred/core";
import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { tracing } from "@opentelemetry/sdk-node";
import Fastify from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fakeRootUnit } from "./fake-unit-of-work";
import { traceIdsOfLogger } from "./log-trace-ids";
import { registerRequestSpans, requestDeps } from "./request-spans";
import { traceWalletSteps } from "./wallet-steps";

// As start-tracing.ts sets it up: a tracer provider and the W3C propagator, and no context manager, so
// nothing but what the server hands down tells a span its parent.
const exporter = new tracing.InMemorySpanExporter();
const provider = new tracing.BasicTracerProvider({
  spanProcessors: [new tracing.SimpleSpanProcessor(exporter)],
});
trace.setGlobalTracerProvider(provider);
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

const statements: string[] = [];
const root = fakeRootUnit(async (text) => {
  statements.push(text);
  // Another request's work runs meanwhile: only what is handed down keeps the parents apart.
  await sleep(20);
  return { rows: [], affected: 0 };
});
const deps = { database: { root } } as unknown as AppDeps;

/** A receiver for the outbound request: the traceparent it got. */
const received: (string | undefined)[] = [];
const receiver = http.createServer((req, res) => {
  received.push(req.headers.traceparent as string | undefined);
  res.end("{}");
});

const lines: Record<string, unknown>[] = [];
const app = Fastify({
  logger: {
    level: "info",
    mixin: traceIdsOfLogger,
    stream: new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  },
});
registerRequestSpans(app);
traceWalletSteps(app);
app.post("/issuers/:issuerId/token", async (request) => {
  const own = requestDeps(request, deps);
  await own.database.root.sql.query('SELECT 1 FROM "Nonce" WHERE "id" = $1', ["n-s3cret"]);
  const { port } = receiver.address() as AddressInfo;
  await own.outboundTrace?.(
    "GET",
    new URL(`http://127.0.0.1:${port}/jwks?key=s3cret`),
    async (headers) => {
      const res = await fetch(`http://127.0.0.1:${port}/jwks?key=s3cret`, { headers });
      return { status: res.status, body: await res.text() };
    },
    (answer) => answer.status,
  );
  request.log.info("stepped");
  return { ok: true };
});
// A wallet step whose handler answers through the reply and its instance: the wrapper passes both on.
app.post("/issuers/:issuerId/nonce", function (this: unknown, _request, reply) {
  reply.code(201).header("x-instance", String(this === app));
  return { ok: true };
});
app.get("/healthz", async (request) => {
  expect(requestDeps(request, deps)).toBe(deps);
  return { ok: true };
});
app.get("/slow", async () => {
  await sleep(300);
  return { ok: true };
});
let base: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  await app.listen({ port: 0, host: "127.0.0.1" });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app.close();
  await new Promise((resolve) => receiver.close(resolve));
  trace.disable();
  propagation.disable();
});
beforeEach(() => {
  exporter.reset();
  statements.length = 0;
  received.length = 0;
  lines.length = 0;
});

const finished = () => exporter.getFinishedSpans();

describe("request spans without an async context", () => {
  it("no context manager is running: context.active() knows nothing of a request", async () => {
    const tracer = trace.getTracer("test");
    tracer.startActiveSpan("x", (span) => {
      expect(trace.getSpan(context.active())).toBeUndefined();
      span.end();
    });
  });

  it("server span by route, the wallet step under it, the statement and the outbound request under the step; traceparent in and out; ids in the log", async () => {
    const callerTrace = "0af7651916cd43dd8448eb211c80319c";
    const res = await fetch(`${base}/issuers/iss_1/token`, {
      method: "POST",
      headers: { traceparent: `00-${callerTrace}-b7ad6b7169203331-01` },
    });
    expect(res.status).toBe(200);
    const spans = finished();
    const server = spans.find((s) => s.kind === SpanKind.SERVER)!;
    expect(server.name).toBe("POST /issuers/:issuerId/token");
    expect(server.spanContext().traceId).toBe(callerTrace);
    expect(server.parentSpanContext?.spanId).toBe("b7ad6b7169203331");
    expect(server.attributes).toMatchObject({
      "http.route": "/issuers/:issuerId/token",
      "http.response.status_code": 200,
    });
    const step = spans.find((s) => s.name === "wallet token")!;
    expect(step.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    const statement = spans.find((s) => s.name === "pg.query:SELECT")!;
    expect(statement.parentSpanContext?.spanId).toBe(step.spanContext().spanId);
    expect(statement.attributes).toMatchObject({
      "db.system.name": "postgresql",
      "db.query.text": 'SELECT 1 FROM "Nonce" WHERE "id" = $1',
    });
    const outbound = spans.find((s) => s.kind === SpanKind.CLIENT && s.name === "GET")!;
    expect(outbound.parentSpanContext?.spanId).toBe(step.spanContext().spanId);
    expect(outbound.attributes).toMatchObject({
      "url.full": expect.stringContaining("/jwks?key=REDACTED"),
      "http.response.status_code": 200,
    });
    expect(received).toEqual([`00-${callerTrace}-${outbound.spanContext().spanId}-01`]);
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toMatch(/s3cret/);
    expect(lines.find((line) => line.msg === "stepped")).toMatchObject({
      trace_id: callerTrace,
      span_id: server.spanContext().spanId,
    });
  });

  it("a wallet step's handler gets fastify's instance and its reply, inside the step's span", async () => {
    const res = await fetch(`${base}/issuers/iss_1/nonce`, { method: "POST" });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-instance")).toBe("true");
    await expect.poll(() => finished().length).toBe(2);
    const spans = finished();
    const step = spans.find((span) => span.name === "wallet nonce");
    const server = spans.find((span) => span.name === "POST /issuers/:issuerId/nonce");
    expect(step?.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
    expect(server?.attributes["http.response.status_code"]).toBe(201);
  });

  it("concurrent requests keep their own parents", async () => {
    await Promise.all([1, 2, 3].map(() => fetch(`${base}/issuers/iss_1/token`, { method: "POST" })));
    const spans = finished();
    const steps = spans.filter((s) => s.name === "wallet token");
    expect(steps).toHaveLength(3);
    for (const step of steps) {
      const children = spans.filter((s) => s.parentSpanContext?.spanId === step.spanContext().spanId);
      expect(children.map((s) => s.name).sort()).toEqual(["GET", "pg.query:SELECT"]);
      for (const child of children) expect(child.spanContext().traceId).toBe(step.spanContext().traceId);
    }
    expect(new Set(steps.map((s) => s.spanContext().traceId)).size).toBe(3);
  });

  it("a request the client drops ends its span, failed, without a status code", async () => {
    const req = http.request(`${base}/slow`);
    req.on("error", () => {});
    req.end();
    await sleep(50);
    req.destroy();
    await expect.poll(() => finished().length).toBe(1);
    const [server] = finished();
    expect(server?.name).toBe("GET /slow");
    expect(server?.status.code).toBe(SpanStatusCode.ERROR);
    expect(server?.attributes["http.response.status_code"]).toBeUndefined();
    // The handler's late answer ends nothing twice.
    await sleep(400);
    expect(finished()).toHaveLength(1);
  });

  it("a request answered ends its span once, with its status code", async () => {
    const res = await fetch(`${base}/slow`);
    expect(res.status).toBe(200);
    await res.text();
    await expect.poll(() => finished().length).toBe(1);
    await sleep(50);
    expect(finished()).toHaveLength(1);
    expect(finished()[0]?.attributes["http.response.status_code"]).toBe(200);
  });

  it("probes are not traced and get the deps unchanged", async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(finished()).toEqual([]);
  });
});
