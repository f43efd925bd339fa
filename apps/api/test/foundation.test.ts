import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

const org = (reference: string) => ({ reference, displayName: `Org ${reference}` });

describe("request ids", () => {
  it("sets x-ms-request-id on success, errors, unknown routes and ops endpoints", async () => {
    const results = await Promise.all([
      call(t, "GET", "/management/organisations", { key: t.adminKey }),
      call(t, "GET", "/management/organisations", { key: null }),
      call(t, "GET", "/nowhere"),
      call(t, "GET", "/healthz"),
      call(t, "GET", "/openapi.json"),
    ]);
    for (const r of results) expect(r.headers.get("x-ms-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const ids = new Set(results.map((r) => r.headers.get("x-ms-request-id")));
    expect(ids.size).toBe(results.length);
  });

  it("echoes a header-safe x-ms-client-request-id and drops an unsafe or oversized one", async () => {
    const ok = await call(t, "GET", "/healthz", { headers: { "x-ms-client-request-id": "my-trace-1" } });
    expect(ok.headers.get("x-ms-client-request-id")).toBe("my-trace-1");
    const long = await call(t, "GET", "/healthz", { headers: { "x-ms-client-request-id": "x".repeat(500) } });
    expect(long.headers.get("x-ms-client-request-id")).toBeNull();
  });

  it("never lets x-ms-client-request-id influence authentication", async () => {
    const r = await call(t, "GET", "/management/organisations", {
      headers: { "x-ms-client-request-id": t.adminKey },
    });
    expect(r.status).toBe(401);
  });

  it("adds X-Correlation-Id and X-Request-Id on the Product plane only", async () => {
    const product = await call(t, "GET", "/v1.0/issuance-transactions/itx_x", {
      headers: { "x-correlation-id": "corr-42" },
    });
    expect(product.headers.get("x-correlation-id")).toBe("corr-42");
    expect(product.headers.get("x-request-id")).toBe(product.headers.get("x-ms-request-id"));
    const generated = await call(t, "GET", "/v1.0/issuance-transactions/itx_x");
    expect(generated.headers.get("x-correlation-id")).toMatch(/^[0-9a-f-]{36}$/);
    const management = await call(t, "GET", "/management/organisations", { key: t.adminKey });
    expect(management.headers.get("x-correlation-id")).toBeNull();
  });
});

describe("error envelope", () => {
  it("answers unknown routes with 404 RouteNotFound", async () => {
    const r = await call(t, "GET", "/nowhere");
    expect(r.status).toBe(404);
    expect(errorCode(r)).toBe("RouteNotFound");
    const rest = await call(t, "GET", "/management/unknown-things", { key: t.adminKey });
    expect(rest.status).toBe(404);
    expect(errorCode(rest)).toBe("RouteNotFound");
  });

  it("answers a wrong method with 405 and Allow", async () => {
    const r = await call(t, "DELETE", "/management/organisations", { key: t.adminKey });
    expect(r.status).toBe(405);
    expect(errorCode(r)).toBe("MethodNotAllowed");
    expect(r.headers.get("allow")).toContain("GET");
    const ops = await call(t, "POST", "/healthz");
    expect(ops.status).toBe(405);
    expect(errorCode(ops)).toBe("MethodNotAllowed");
  });

  it("answers OPTIONS with 204 and the path's methods in Allow", async () => {
    const list = await call(t, "OPTIONS", "/management/organisations", { apiVersion: false });
    expect(list.status).toBe(204);
    expect(list.headers.get("allow")).toBe("OPTIONS, POST, GET");
    const create = await call(t, "OPTIONS", "/v1.0/verifications");
    expect(create.status).toBe(204);
    expect(create.headers.get("allow")).toBe("OPTIONS, POST");
    const none = await call(t, "OPTIONS", "/v1.0/nothing-here");
    expect(none.status).toBe(404);
    expect(errorCode(none)).toBe("RouteNotFound");
  });

  it("answers malformed JSON with 400 MalformedJson", async () => {
    const r = await call(t, "POST", "/management/organisations", { key: t.adminKey, rawBody: "{not json" });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("MalformedJson");
  });

  it("answers an oversized body with 413 PayloadTooLarge", async () => {
    const r = await call(t, "POST", "/management/organisations", {
      key: t.adminKey,
      rawBody: JSON.stringify({ reference: "big", displayName: "x".repeat(2 * 1024 * 1024) }),
    });
    expect(r.status).toBe(413);
    expect(errorCode(r)).toBe("PayloadTooLarge");
  });

  it("answers an unsupported content type with 415", async () => {
    const r = await call(t, "POST", "/management/organisations", {
      key: t.adminKey,
      rawBody: "<xml/>",
      headers: { "content-type": "application/xml" },
    });
    expect(r.status).toBe(415);
    expect(errorCode(r)).toBe("UnsupportedMediaType");
    // Types the server can parse for other endpoints are no exception: JSON as text/plain, a form.
    for (const [type, rawBody] of [
      ["text/plain", JSON.stringify({ reference: "as-text", displayName: "Text" })],
      ["application/x-www-form-urlencoded", "reference=as-form&displayName=Form"],
    ]) {
      const other = await call(t, "POST", "/v1.0/issuance-transactions", {
        key: t.adminKey,
        rawBody,
        headers: { "content-type": type! },
      });
      expect([type, other.status, errorCode(other)]).toEqual([type, 415, "UnsupportedMediaType"]);
    }
  });

  it("reports validation failures with details and never the library's default body", async () => {
    const r = await call(t, "POST", "/management/organisations", {
      key: t.adminKey,
      body: { reference: "Bad Ref" },
    });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("ValidationFailed");
    expect(Object.keys(r.body)).toEqual(["error"]);
    expect(r.body.error.details.map((d: { target: string }) => d.target)).toEqual(
      expect.arrayContaining(["reference", "displayName"]),
    );
  });

  it("rejects unknown body fields, one detail naming each", async () => {
    const r = await call(t, "POST", "/management/organisations", {
      key: t.adminKey,
      body: { ...org("extra-field"), colour: "red", identifiers: [{ scheme: "LEI", value: "1", x: 1 }] },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual(
      expect.arrayContaining([
        { code: "UnknownField", target: "colour", message: expect.stringContaining("'colour'") },
        { code: "UnknownField", target: "identifiers.0.x", message: expect.stringContaining("'x'") },
      ]),
    );
    // Many unknown members, or a long name: the answer stays small.
    const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, 0]));
    const flood = await call(t, "POST", "/management/organisations", {
      key: t.adminKey,
      body: { ...org("flood"), ...many, ["n".repeat(10_000)]: 1 },
    });
    expect(flood.status).toBe(400);
    expect(flood.body.error.details).toHaveLength(21);
    expect(flood.body.error.details.at(-1)).toMatchObject({ code: "TooManyProblems", target: "body" });
    expect(JSON.stringify(flood.body).length).toBeLessThan(5_000);
    const long = await call(t, "POST", "/management/organisations", {
      key: t.adminKey,
      body: { ...org("long"), ["n".repeat(10_000)]: 1 },
    });
    expect(long.body.error.details[0].target).toBe(`${"n".repeat(100)}…`);
  });

  it("hides unexpected failures (the database gone) behind a 500 without internals", async () => {
    const broken = await startTestServer();
    try {
      await broken.server.database.close();
      const r = await call(broken, "GET", "/management/organisations", { key: broken.adminKey });
      expect(r.status).toBe(500);
      expect(errorCode(r)).toBe("InternalError");
      expect(Object.keys(r.body)).toEqual(["error"]);
      expect(JSON.stringify(r.body)).not.toMatch(/prisma|pglite|stack|\.ts/i);
      expect((await call(broken, "GET", "/readyz")).status).toBe(503);
      // A wallet endpoint says so in the OAuth shape, whose error a wallet reads as a string.
      const token = await fetch(`${broken.baseUrl}/issuers/iss_x/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=x",
      });
      expect(token.status).toBe(500);
      expect(await token.json()).toEqual({ error: "server_error", error_description: expect.any(String) });
    } finally {
      await broken.server.app.close();
    }
  });
});

describe("api-version", () => {
  it("is required on the Management plane", async () => {
    const r = await call(t, "GET", "/management/organisations", { key: t.adminKey, apiVersion: false });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("MissingApiVersion");
  });
  it("must be the supported value", async () => {
    const r = await call(t, "GET", "/management/organisations", {
      key: t.adminKey,
      apiVersion: "2020-01-01",
    });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("UnsupportedApiVersion");
  });
  it("is not needed on the Product plane", async () => {
    const r = await call(t, "GET", "/v1.0/issuance-transactions/itx_00000000000000000000000000", {
      key: t.adminKey,
    });
    expect(r.status).not.toBe(400);
  });
});

describe("authentication", () => {
  it("records when a key was last used (at most once a minute)", async () => {
    const key = await t.key({ scopes: ["organisations.read"] });
    const prefix = key.split("_")[1]!;
    const row = () => t.server.database.prisma.apiKey.findUniqueOrThrow({ where: { prefix } });
    expect((await row()).lastUsedAt).toBeNull();
    const before = Date.now();
    expect((await call(t, "GET", "/management/organisations", { key })).status).toBe(200);
    let used: Date | null = null;
    for (let i = 0; i < 100 && !used; i++) {
      used = (await row()).lastUsedAt;
      if (!used) await new Promise((r) => setTimeout(r, 10));
    }
    expect(used!.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  const path = "/management/organisations";
  it("401 when the key is missing", async () => {
    const r = await call(t, "GET", path);
    expect(r.status).toBe(401);
    expect(errorCode(r)).toBe("Unauthenticated");
  });
  it("401 when the header is malformed", async () => {
    for (const value of ["Bearer abc", "ApiKey", "ApiKey not-a-key", `Basic ${t.adminKey}`]) {
      const r = await call(t, "GET", path, { headers: { authorization: value } });
      expect(r.status, value).toBe(401);
      expect(errorCode(r)).toBe("Unauthenticated");
    }
  });
  it("401 when the key is unknown", async () => {
    const unknown = `ak_aaaaaaaaaaaa_${"A".repeat(43)}`;
    const r = await call(t, "GET", path, { key: unknown });
    expect(r.status).toBe(401);
    // The right prefix with a wrong secret is just as unknown.
    const wrongSecret = `${t.adminKey.slice(0, 16)}${"B".repeat(43)}`;
    expect((await call(t, "GET", path, { key: wrongSecret })).status).toBe(401);
  });
  it("401 when the key is revoked", async () => {
    const key = await t.key();
    expect((await call(t, "GET", path, { key })).status).toBe(200);
    const { revokeApiKey } = await import("@cred/core");
    const prefix = key.slice(3, 15);
    const row = await t.server.database.prisma.apiKey.findUniqueOrThrow({ where: { prefix } });
    await revokeApiKey(t.server.database.root, t.server.deps.caches, { tenantId: t.tenantId }, row.id);
    const r = await call(t, "GET", path, { key });
    expect(r.status).toBe(401);
    expect(r.body.error.message).toContain("revoked");
  });
  it("401 when the key has expired", async () => {
    // Keys cannot be created expired; this one is moved into the past after it was made.
    const expiresAt = new Date(Date.now() + 3_600_000 + Math.floor(Math.random() * 1_000_000));
    const key = await t.key({ expiresAt });
    await t.server.database.prisma.apiKey.updateMany({
      where: { expiresAt },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const r = await call(t, "GET", path, { key });
    expect(r.status).toBe(401);
    expect(r.body.error.message).toContain("expired");
  });
  it("403 when the key lacks the scope", async () => {
    const key = await t.key({ scopes: ["organisations.read"] });
    const r = await call(t, "POST", path, { key, body: org("no-scope") });
    expect(r.status).toBe(403);
    expect(errorCode(r)).toBe("MissingScope");
    expect((await call(t, "GET", path, { key })).status).toBe(200);
  });
  it("stores keys hashed, never in clear", async () => {
    const rows = await t.server.database.prisma.apiKey.findMany();
    for (const row of rows) expect(JSON.stringify(row)).not.toContain(t.adminKey.slice(16));
  });
});

describe("tenancy", () => {
  it("reads another tenant's or environment's organisation as 404", async () => {
    expect(
      (await call(t, "POST", "/management/organisations", { key: t.adminKey, body: org("mine") })).status,
    ).toBe(201);
    const other = await t.otherTenant();
    const foreign = await call(t, "GET", "/management/organisations/mine", { key: other.key });
    expect(foreign.status).toBe(404);
    expect(errorCode(foreign)).toBe("NotFound");
    const production = await t.key({ environment: "production" });
    expect((await call(t, "GET", "/management/organisations/mine", { key: production })).status).toBe(404);
    const list = await call(t, "GET", "/management/organisations", { key: other.key });
    expect(list.body.data).toEqual([]);
    // The same reference is free in another tenant.
    expect(
      (await call(t, "POST", "/management/organisations", { key: other.key, body: org("mine") })).status,
    ).toBe(201);
  });
});

describe("idempotency", () => {
  const path = "/management/organisations";
  it("replays the original status and body with Idempotent-Replayed", async () => {
    const headers = { "idempotency-key": "idem-1" };
    const first = await call(t, "POST", path, { key: t.adminKey, body: org("idem-one"), headers });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const second = await call(t, "POST", path, { key: t.adminKey, body: org("idem-one"), headers });
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body).toEqual(first.body);
  });
  it("rejects the same key with another payload (409 IdempotencyKeyReused)", async () => {
    const headers = { "idempotency-key": "idem-2" };
    expect((await call(t, "POST", path, { key: t.adminKey, body: org("idem-two"), headers })).status).toBe(
      201,
    );
    const r = await call(t, "POST", path, { key: t.adminKey, body: org("idem-other"), headers });
    expect(r.status).toBe(409);
    expect(errorCode(r)).toBe("IdempotencyKeyReused");
  });
  it("produces one effect for concurrent duplicates", async () => {
    const headers = { "idempotency-key": "idem-3" };
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        call(t, "POST", path, { key: t.adminKey, body: org("idem-three"), headers }),
      ),
    );
    for (const r of results) expect([201, 409]).toContain(r.status);
    expect(results.filter((r) => r.status === 201 && !r.headers.get("idempotent-replayed"))).toHaveLength(1);
    const count = await t.server.database.prisma.organisation.count({ where: { reference: "idem-three" } });
    expect(count).toBe(1);
  });
  it("answers a duplicate while the first is in flight with 409 IdempotencyKeyInUse, then replays it", async () => {
    const { createRequestContext } = await import("@cred/core");
    const { withIdempotency } = await import("@cred/core/testing");
    const context = () => ({
      ...createRequestContext(t.server.deps, {
        requestId: "req",
        authorization: undefined,
        staffSessionToken: undefined,
        csrfToken: undefined,
        idempotencyKey: "idem-gate",
      }),
      principal: {
        kind: "apiKey" as const,
        id: "key",
        tenantId: t.tenantId,
        environment: "sandbox" as const,
        scopes: new Set<never>(),
        issuerId: null,
        name: "key",
      },
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let runs = 0;
    const run = async () => {
      runs++;
      await gate;
      return { data: "first" };
    };
    const first = withIdempotency(context(), "Test_Gated", { a: 1 }, run);
    // The key is claimed (committed) before the operation runs; wait until it runs.
    for (let i = 0; i < 400 && runs === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(runs).toBe(1);
    const second = withIdempotency(context(), "Test_Gated", { a: 1 }, run).then(
      (value) => ({ value }),
      (error: { code?: string }) => ({ error: error.code }),
    );
    await new Promise((r) => setTimeout(r, 50));
    release();
    expect(await first).toEqual({ data: "first" });
    if (t.server.database.kind === "postgres") {
      expect(await second).toEqual({ error: "IdempotencyKeyInUse" });
    } else {
      // The embedded database has one session, which the first request's open transaction holds: the
      // duplicate's claim waits for it and then replays.
      expect(await second).toEqual({ value: { data: "first" } });
    }
    const replayed = context();
    expect(await withIdempotency(replayed, "Test_Gated", { a: 1 }, run)).toEqual({ data: "first" });
    expect(replayed.response.headers["Idempotent-Replayed"]).toBe("true");
    expect(runs).toBe(1);
  });

  it("is driven by meta.idempotent alone: such a procedure replays, one without it ignores the key", async () => {
    const { createRequestContext } = await import("@cred/core");
    const { createCallerFactory, idempotentInputParsers } = await import("@cred/core");
    const { protectedProcedure, router } = await import("@cred/core/testing");
    const { z } = await import("zod");
    const runs = { idempotent: 0, plain: 0 };
    const meta = (operationId: string, idempotent: boolean) => ({
      openapi: { method: "POST" as const, path: `/test/${operationId}` as const, operationId },
      successStatus: 201,
      idempotent,
    });
    // No withIdempotency in the bodies: the meta is all that differs.
    const testRouter = router({
      idempotent: protectedProcedure
        .meta(meta("Test_MetaIdempotent", true))
        .input(z.object({ n: z.number(), tag: z.string().default("t") }))
        .mutation(async ({ ctx, input }) => ({
          run: ++runs.idempotent,
          n: input.n,
          inTx: ctx.db.inTransaction,
        })),
      plain: protectedProcedure
        .meta(meta("Test_MetaPlain", false))
        .input(z.object({ n: z.number() }))
        .mutation(async ({ ctx }) => ({ run: ++runs.plain, inTx: ctx.db.inTransaction })),
    });
    const deps = { ...t.server.deps, idempotentInputs: idempotentInputParsers(testRouter) };
    const caller = (key: string) => {
      const ctx = createRequestContext(deps, {
        requestId: "req",
        authorization: `ApiKey ${t.adminKey}`,
        staffSessionToken: undefined,
        csrfToken: undefined,
        idempotencyKey: key,
      });
      return { ctx, call: createCallerFactory(testRouter)(ctx) };
    };
    const first = caller("meta-1");
    expect(await first.call.idempotent({ n: 1 })).toEqual({ run: 1, n: 1, inTx: true });
    const replay = caller("meta-1");
    // The parsed input is what is compared: the default written out is the same request.
    expect(await replay.call.idempotent({ n: 1, tag: "t" })).toEqual({ run: 1, n: 1, inTx: true });
    expect(replay.ctx.response).toEqual(
      expect.objectContaining({
        status: 201,
        headers: expect.objectContaining({ "Idempotent-Replayed": "true" }),
      }),
    );
    await expect(caller("meta-1").call.idempotent({ n: 2 })).rejects.toMatchObject({
      cause: expect.objectContaining({ code: "IdempotencyKeyReused" }),
    });
    expect(runs.idempotent).toBe(1);

    expect(await caller("meta-2").call.plain({ n: 1 })).toEqual({ run: 1, inTx: false });
    const again = caller("meta-2");
    expect(await again.call.plain({ n: 1 })).toEqual({ run: 2, inTx: false });
    expect(again.ctx.response.headers["Idempotent-Replayed"]).toBeUndefined();
    expect(
      await t.server.database.prisma.idempotencyRecord.count({ where: { operation: "Test_MetaPlain" } }),
    ).toBe(0);
  });

  it("does not keep a record when the operation fails, so a corrected retry works", async () => {
    const headers = { "idempotency-key": "idem-4" };
    expect((await call(t, "POST", path, { key: t.adminKey, body: org("mine"), headers })).status).toBe(409);
    expect((await call(t, "POST", path, { key: t.adminKey, body: org("mine"), headers })).status).toBe(409);
  });
  it("takes over a key whose record has expired, or whose first request died in flight", async () => {
    const prisma = t.server.database.prisma;
    const headers = { "idempotency-key": "idem-old" };
    expect((await call(t, "POST", path, { key: t.adminKey, body: org("idem-old-1"), headers })).status).toBe(
      201,
    );
    await prisma.idempotencyRecord.updateMany({
      where: { key: "idem-old" },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const fresh = await call(t, "POST", path, { key: t.adminKey, body: org("idem-old-2"), headers });
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get("idempotent-replayed")).toBeNull();
    // In flight for more than a minute (its process died): taken over.
    await prisma.idempotencyRecord.updateMany({
      where: { key: "idem-old" },
      data: { state: "in_flight", expiresAt: new Date(Date.now() + 24 * 3600_000 - 120_000) },
    });
    const revived = await call(t, "POST", path, { key: t.adminKey, body: org("idem-old-2"), headers });
    expect([revived.status, errorCode(revived)]).toEqual([409, "AlreadyExists"]);
  });

  it("rejects keys longer than 255 characters", async () => {
    const r = await call(t, "POST", path, {
      key: t.adminKey,
      body: org("idem-five"),
      headers: { "idempotency-key": "k".repeat(256) },
    });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("InvalidIdempotencyKey");
  });
  it("scopes keys per tenant", async () => {
    const other = await t.otherTenant();
    const headers = { "idempotency-key": "shared-key" };
    expect((await call(t, "POST", path, { key: t.adminKey, body: org("idem-six"), headers })).status).toBe(
      201,
    );
    const r = await call(t, "POST", path, { key: other.key, body: org("idem-seven"), headers });
    expect(r.status).toBe(201);
    expect(r.headers.get("idempotent-replayed")).toBeNull();
  });
});

describe("shutdown", () => {
  it("does not wait out the keep-alive timeout of a connection whose request was in flight", async () => {
    const server = await startTestServer();
    const { hostname, port } = new URL(server.baseUrl);
    const socket = net.connect(Number(port), hostname);
    await new Promise((resolve) => socket.once("connect", resolve));
    const body = JSON.stringify({ reference: "shutdown-org", displayName: "Shutdown" });
    // The request is in flight (its body half sent) when shutdown begins; keep-alive asked for.
    socket.write(
      `POST /management/organisations?api-version=2026-08-30 HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n` +
        `Authorization: ApiKey ${server.adminKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n` +
        body.slice(0, 5),
    );
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString();
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    const closed = server.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.write(body.slice(5));
    await closed;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(answer).toMatch(/^HTTP\/1\.1 201/);
    socket.destroy();
  }, 30_000);
});

describe("throttling", () => {
  it("answers 429 with Retry-After and RateLimit headers once the budget is spent", async () => {
    const small = await startTestServer({ rateLimit: { points: 3, durationSeconds: 60 } });
    try {
      const results = [];
      for (let i = 0; i < 4; i++)
        results.push(await call(small, "GET", "/management/organisations", { key: small.adminKey }));
      expect(results.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);
      const limited = results[3]!;
      expect(limited.status).toBe(429);
      expect(errorCode(limited)).toBe("Throttled");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(limited.headers.get("ratelimit")).toMatch(/r=0/);
      expect(results[0]!.headers.get("ratelimit-policy")).toContain("q=3");
    } finally {
      await small.close();
    }
  });
});

describe("organisations", () => {
  it("creates, gets and lists with cursor pagination in a stable order", async () => {
    const key = await t.key({ environment: "production" });
    const refs = ["page-a", "page-b", "page-c", "page-d", "page-e"];
    for (const ref of refs) {
      const r = await call(t, "POST", "/management/organisations", {
        key,
        body: { ...org(ref), legalName: "L", country: "NL", identifiers: [{ scheme: "LEI", value: "123" }] },
      });
      expect(r.status).toBe(201);
      expect(r.body.data).toMatchObject({ reference: ref, country: "NL", environment: "production" });
    }
    const got = await call(t, "GET", "/management/organisations/page-c", { key });
    expect(got.status).toBe(200);
    expect(got.body.data.reference).toBe("page-c");
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call(
        t,
        "GET",
        `/management/organisations?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
        {
          key,
        },
      );
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((o: { reference: string }) => o.reference));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(refs);
  });
  it("409 on a duplicate reference", async () => {
    await call(t, "POST", "/management/organisations", { key: t.adminKey, body: org("dup") });
    const r = await call(t, "POST", "/management/organisations", { key: t.adminKey, body: org("dup") });
    expect(r.status).toBe(409);
    expect(errorCode(r)).toBe("AlreadyExists");
  });
  it("400 on a bad limit or cursor", async () => {
    expect((await call(t, "GET", "/management/organisations?limit=0", { key: t.adminKey })).status).toBe(400);
    expect((await call(t, "GET", "/management/organisations?limit=101", { key: t.adminKey })).status).toBe(
      400,
    );
    expect((await call(t, "GET", "/management/organisations?cursor=zzz", { key: t.adminKey })).status).toBe(
      400,
    );
  });
});

describe("operations endpoints", () => {
  it("serves health, readiness, OpenAPI and the reference", async () => {
    expect((await call(t, "GET", "/healthz")).body).toEqual({ status: "ok" });
    expect((await call(t, "GET", "/readyz")).body.status).toBe("ready");
    const doc = await call(t, "GET", "/openapi.json");
    expect(doc.body.openapi).toMatch(/^3\.1/);
    const create = doc.body.paths["/management/organisations"].post;
    expect(create.operationId).toBe("Organisations_Create");
    expect(Object.keys(create.responses)).toEqual(
      expect.arrayContaining(["201", "400", "401", "403", "409", "429"]),
    );
    expect(create.responses["200"]).toBeUndefined();
    expect(create.responses["409"].content["application/json"].schema.$ref).toBe(
      "#/components/schemas/ErrorEnvelope",
    );
    expect(doc.body.components.securitySchemes.ApiKey).toMatchObject({
      type: "apiKey",
      name: "Authorization",
    });
    // The headers responses carry are declared (the Product plane's correlation ids too).
    expect(Object.keys(create.responses["201"].headers)).toEqual(
      expect.arrayContaining(["x-ms-request-id", "x-ms-client-request-id", "RateLimit", "RateLimit-Policy"]),
    );
    const issue = doc.body.paths["/v1.0/issuance-transactions"].post;
    expect(Object.keys(issue.responses["201"].headers)).toEqual(
      expect.arrayContaining(["X-Correlation-Id", "X-Request-Id", "Idempotent-Replayed"]),
    );
    expect(Object.keys(issue.responses["400"].headers)).toContain("X-Correlation-Id");
    // Every operation states the scope its key needs.
    expect(create["x-required-scopes"]).toEqual(["organisations.manage"]);
    expect(create.description).toContain("Requires the API key scope `organisations.manage`.");
    for (const [path, item] of Object.entries(doc.body.paths as Record<string, Record<string, any>>)) {
      if (!path.startsWith("/v1.0/") && !path.startsWith("/management/")) continue;
      for (const [method, operation] of Object.entries(item))
        expect(operation["x-required-scopes"]?.length, `${method} ${path}`).toBeGreaterThan(0);
    }
    const docs = await fetch(`${t.baseUrl}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain("swagger");
    // Its assets come through @fastify/static (pinned to Node 20 dependencies in pnpm-workspace.yaml).
    const asset = await fetch(`${t.baseUrl}/docs/static/swagger-ui-bundle.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toMatch(/javascript/);
    expect((await asset.text()).length).toBeGreaterThan(100_000);
  });
});
