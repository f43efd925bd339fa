import http from "node:http";
import type { AddressInfo } from "node:net";
import { context, INVALID_SPAN_CONTEXT, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { type RPCMetadata, RPCType, setRPCMetadata } from "@opentelemetry/core";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nameRequestSpansByRoute } from "./route-spans";

const manager = new AsyncLocalStorageContextManager();
/** The RPC metadata the next request runs with, as the http instrumentation sets it (none: untraced). */
let next: RPCMetadata | undefined;

// Each request runs inside a context with that metadata, as under the http instrumentation's server span.
const app = Fastify({
  serverFactory: (handler) =>
    http.createServer((req, res) => {
      const ctx = next ? setRPCMetadata(ROOT_CONTEXT, next) : ROOT_CONTEXT;
      context.with(ctx, () => handler(req, res));
    }),
});
nameRequestSpansByRoute(app);
app.get("/issuers/:issuerId/offers/:handle", async () => ({ ok: true }));
let base: string;

beforeAll(async () => {
  context.setGlobalContextManager(manager.enable());
  await app.listen({ port: 0, host: "127.0.0.1" });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app.close();
  context.disable();
});

async function routeSeen(path: string) {
  const metadata: RPCMetadata = {
    type: RPCType.HTTP,
    span: trace.wrapSpanContext(INVALID_SPAN_CONTEXT),
  };
  next = metadata;
  try {
    const res = await fetch(`${base}${path}`);
    await res.arrayBuffer();
    return { status: res.status, route: metadata.route };
  } finally {
    next = undefined;
  }
}

describe("request spans named by route", () => {
  it("the route's pattern, not the path with its ids and handles", async () => {
    expect(await routeSeen("/issuers/iss_1/offers/s3cret")).toEqual({
      status: 200,
      route: "/issuers/:issuerId/offers/:handle",
    });
  });

  it("no route for a path none matches (the span keeps the method alone)", async () => {
    expect(await routeSeen("/nowhere/s3cret")).toEqual({ status: 404, route: undefined });
  });

  it("outside a traced request (no metadata) the request is answered as usual", async () => {
    const res = await fetch(`${base}/issuers/iss_1/offers/h`);
    expect(res.status).toBe(200);
  });
});
