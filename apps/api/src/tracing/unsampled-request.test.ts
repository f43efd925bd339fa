// A request the sampler drops costs (nearly) nothing: its handlers get the database as it is, with no
// proxy or per-statement call between them and Prisma, and no route name or span attributes are built.
// A trace the request would start gets nothing else either (its outbound requests carry no traceparent);
// a caller's unsampled trace is joined: its outbound requests carry the unsampled traceparent on.
import type { AddressInfo } from "node:net";
import type { AppDeps } from "@cred/core";
import { propagation, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { tracing } from "@opentelemetry/sdk-node";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeRootUnit } from "./fake-unit-of-work";
import { registerRequestSpans, requestDeps } from "./request-spans";
import { traceWalletSteps } from "./wallet-steps";

const exporter = new tracing.InMemorySpanExporter();
const provider = new tracing.BasicTracerProvider({
  sampler: new tracing.ParentBasedSampler({ root: new tracing.TraceIdRatioBasedSampler(0) }),
  spanProcessors: [new tracing.SimpleSpanProcessor(exporter)],
});
trace.setGlobalTracerProvider(provider);
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

const root = fakeRootUnit();
const deps = { database: { root } } as unknown as AppDeps;

let seen:
  | { database: unknown; headers: Record<string, string>; routeOptionsReads: number; scoped: boolean }
  | undefined;
const app = Fastify();
// Counts reads of fastify's routeOptions (an object made on each read) while the request is traced.
let routeOptionsReads = 0;
app.addHook("onRequest", (request, _reply, done) => {
  const getter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(request), "routeOptions")?.get;
  if (!getter) throw new Error("fastify's request has no routeOptions getter");
  Object.defineProperty(request, "routeOptions", {
    get() {
      routeOptionsReads++;
      return getter.call(this);
    },
  });
  done();
});
registerRequestSpans(app);
traceWalletSteps(app);
app.post("/issuers/:issuerId/token", async (request) => {
  const own = requestDeps(request, deps);
  await own.database.root.sql.query("SELECT 1", []);
  let headers: Record<string, string> = {};
  await own.outboundTrace?.("GET", new URL("http://127.0.0.1:9/jwks"), async (given) => {
    headers = given;
    return {};
  });
  seen = { database: own.database, headers, routeOptionsReads, scoped: request.traceScope !== undefined };
  return { ok: true };
});
// A wallet step whose handler answers through the reply and its instance: the wrapper passes both on.
app.post("/issuers/:issuerId/nonce", function (this: unknown, _request, reply) {
  reply.code(201).header("x-instance", String(this === app));
  return { ok: true };
});
let base: string;

beforeAll(async () => {
  await app.listen({ port: 0, host: "127.0.0.1" });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app.close();
  trace.disable();
  propagation.disable();
});

describe("an unsampled request", () => {
  it("starting a dropped trace, goes on untraced: deps as they are, no span, no traceparent", async () => {
    const res = await fetch(`${base}/issuers/iss_1/token`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(seen?.database).toBe(deps.database);
    expect(seen?.scoped).toBe(false);
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(seen?.headers).toEqual({});
    // No route name is looked up for a span that is not recorded.
    expect(seen?.routeOptionsReads).toBe(0);
  });

  it("reaches a wallet step's handler with fastify's instance and its reply", async () => {
    const unsampled = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00" };
    for (const headers of [{} as Record<string, string>, unsampled]) {
      const res = await fetch(`${base}/issuers/iss_1/nonce`, { method: "POST", headers });
      expect(res.status).toBe(201);
      expect(res.headers.get("x-instance")).toBe("true");
    }
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it("joins a caller's unsampled trace: database unwrapped, the caller's trace passed on", async () => {
    const callerTrace = "0af7651916cd43dd8448eb211c80319c";
    const res = await fetch(`${base}/issuers/iss_1/token`, {
      method: "POST",
      headers: { traceparent: `00-${callerTrace}-b7ad6b7169203331-00` },
    });
    expect(res.status).toBe(200);
    expect(seen?.database).toBe(deps.database);
    expect(seen?.scoped).toBe(true);
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(seen?.headers.traceparent).toMatch(new RegExp(`^00-${callerTrace}-[0-9a-f]{16}-00$`));
    expect(seen?.routeOptionsReads).toBe(0);
  });
});
