import { type Environment, newId } from "@cred/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

const BASE = "/management/webhooks";
const DELIVERIES = "/management/webhook-deliveries";
/** A public address literal: accepted without DNS (the test machine may have none). */
const PUBLIC_URL = "https://93.184.215.14/hooks/credentials";

let t: TestServer;
/** Production-like: no development mode, nothing allow-listed. */
let strict: TestServer;

beforeAll(async () => {
  [t, strict] = await Promise.all([
    startTestServer(),
    startTestServer({ developmentMode: false, webhookAllowedHosts: [] }),
  ]);
});
afterAll(async () => {
  await Promise.all([t?.close(), strict?.close()]);
});

const subscription = (overrides: Record<string, unknown> = {}) => ({
  url: PUBLIC_URL,
  events: ["verification.session.verified", "verification.session.rejected"],
  description: "Checkout backend",
  ...overrides,
});

async function create(server: TestServer, body: unknown, key = server.adminKey) {
  return call(server, "POST", BASE, { key, body });
}

describe("Webhooks_Create", () => {
  it("201 with the subscription and a whsec_ secret, stored sealed", async () => {
    const r = await create(t, subscription());
    expect(r.status).toBe(201);
    const data = r.body.data;
    expect(data).toMatchObject({
      url: PUBLIC_URL,
      events: ["verification.session.verified", "verification.session.rejected"],
      description: "Checkout backend",
      status: "active",
    });
    expect(data.id).toMatch(/^wh_[0-9a-z]{26}$/);
    expect(data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(data.secret.slice(6), "base64")).toHaveLength(24);
    expect(Date.parse(data.createdAt)).not.toBeNaN();

    const row = await t.server.database.prisma.webhookSubscription.findUniqueOrThrow({
      where: { id: data.id },
    });
    expect(row.secretCipher).not.toContain(data.secret.slice(6));
    expect(t.server.deps.secretBox.open(row.secretCipher, data.id)).toBe(data.secret);
    expect(() => t.server.deps.secretBox.open(row.secretCipher, "wh_other")).toThrow();
    expect(row).toMatchObject({ tenantId: t.tenantId, environment: "sandbox", deletedAt: null });
  });

  it("ignores Idempotency-Key (no meta.idempotent): each call creates its own subscription, none replayed", async () => {
    const headers = { "idempotency-key": "webhook-create-twice" };
    const first = await call(t, "POST", BASE, { key: t.adminKey, body: subscription(), headers });
    const second = await call(t, "POST", BASE, { key: t.adminKey, body: subscription(), headers });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect(second.body.data.id).not.toBe(first.body.data.id);
    const records = await t.server.database.prisma.idempotencyRecord.count({
      where: { key: "webhook-create-twice" },
    });
    expect(records).toBe(0);
  });

  it("shows the secret once: never in Get or List", async () => {
    const created = await create(t, subscription({ description: null, events: ["*"] }));
    expect(created.status).toBe(201);
    expect(created.body.data.description).toBeNull();
    expect(created.body.data.events).toEqual(["*"]);
    const got = await call(t, "GET", `${BASE}/${created.body.data.id}`, { key: t.adminKey });
    expect(got.status).toBe(200);
    expect(got.body.data).not.toHaveProperty("secret");
    const { secret, ...rest } = created.body.data;
    expect(got.body.data).toEqual(rest);
    const list = await call(t, "GET", `${BASE}?limit=100`, { key: t.adminKey });
    expect(JSON.stringify(list.body)).not.toContain("whsec_");
    expect(JSON.stringify(list.body)).not.toContain(secret.slice(6));
    for (const item of list.body.data) expect(item).not.toHaveProperty("secret");
  });

  it("gives every subscription its own secret", async () => {
    const a = await create(t, subscription());
    const b = await create(t, subscription());
    expect(a.body.data.secret).not.toBe(b.body.data.secret);
  });

  it("allows http to loopback hosts in development mode", async () => {
    for (const url of ["http://127.0.0.1:9/hook", "http://localhost:9/hook", "https://127.0.0.1/hook"]) {
      const r = await create(t, subscription({ url }));
      expect(r.status, url).toBe(201);
    }
  });

  it.each([
    ["an unknown event type", subscription({ events: ["credential.exploded"] })],
    ["no events", subscription({ events: [] })],
    ["* mixed with event types", subscription({ events: ["*", "credential.revoked"] })],
    ["a repeated event type", subscription({ events: ["credential.revoked", "credential.revoked"] })],
    ["a relative URL", subscription({ url: "/hooks" })],
    ["a missing URL", { events: ["*"] }],
    ["an unknown field", { ...subscription(), secret: "whsec_mine" }],
    ["an over-long description", subscription({ description: "x".repeat(501) })],
  ])("400 ValidationFailed on %s", async (_name, body) => {
    const r = await create(t, body);
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("ValidationFailed");
  });

  it.each([
    ["http://93.184.215.14/hook", "HttpsRequired"],
    ["ftp://93.184.215.14/hook", "HttpsRequired"],
    ["http://10.0.0.1/hook", "HttpsRequired"],
    ["https://10.0.0.1/hook", "ForbiddenAddress"],
    ["https://10.255.1.2:8443/hook", "ForbiddenAddress"],
    ["https://192.168.1.20/hook", "ForbiddenAddress"],
    ["https://172.16.0.1/hook", "ForbiddenAddress"],
    ["https://172.31.200.1/hook", "ForbiddenAddress"],
    ["https://100.64.0.1/hook", "ForbiddenAddress"],
    ["https://169.254.10.10/hook", "ForbiddenAddress"],
    ["https://169.254.169.254/latest/meta-data/", "MetadataHost"],
    ["https://[fd00:ec2::254]/", "MetadataHost"],
    ["https://metadata.google.internal/computeMetadata/v1/", "MetadataHost"],
    ["https://[fc00::1]/hook", "ForbiddenAddress"],
    ["https://[fe80::1]/hook", "ForbiddenAddress"],
    ["https://[::ffff:10.0.0.1]/hook", "ForbiddenAddress"],
    ["https://224.0.0.1/hook", "ForbiddenAddress"],
    ["https://0.0.0.0/hook", "ForbiddenAddress"],
    ["https://[::]/hook", "ForbiddenAddress"],
    ["https://user:pass@93.184.215.14/hook", "CredentialsInUrl"],
    ["https://does-not-exist.invalid/hook", "UnresolvableHost"],
  ])("400 WebhookUrlNotAllowed for %s", async (url, reason) => {
    const r = await create(t, subscription({ url }));
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("WebhookUrlNotAllowed");
    expect(r.body.error.details).toEqual([expect.objectContaining({ code: reason, target: "url" })]);
  });

  it.each([
    ["http://127.0.0.1:9/hook", "HttpsRequired"],
    ["http://localhost:9/hook", "HttpsRequired"],
    ["https://127.0.0.1/hook", "ForbiddenAddress"],
    ["https://[::1]/hook", "ForbiddenAddress"],
    ["https://localhost/hook", "ForbiddenAddress"],
    ["https://localhost./hook", "ForbiddenAddress"],
    ["https://api.localhost/hook", "ForbiddenAddress"],
  ])("outside development mode, without an allow-list: 400 for %s", async (url, reason) => {
    const r = await create(strict, subscription({ url }));
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("WebhookUrlNotAllowed");
    expect(r.body.error.details[0]).toMatchObject({ code: reason, target: "url" });
  });

  it("outside development mode a public https URL is still fine", async () => {
    expect((await create(strict, subscription())).status).toBe(201);
  });

  it("writes nothing when the URL is refused", async () => {
    const before = await strict.server.database.prisma.webhookSubscription.count();
    await create(strict, subscription({ url: "https://10.0.0.1/" }));
    expect(await strict.server.database.prisma.webhookSubscription.count()).toBe(before);
  });

  it("401 without a key, 403 without webhooks.manage", async () => {
    const none = await call(t, "POST", BASE, { body: subscription() });
    expect(none.status).toBe(401);
    expect(errorCode(none)).toBe("Unauthenticated");
    const readOnly = await t.key({ scopes: ["webhooks.read"] });
    const r = await create(t, subscription(), readOnly);
    expect(r.status).toBe(403);
    expect(errorCode(r)).toBe("MissingScope");
  });
});

describe("Webhooks_Get", () => {
  let id: string;
  beforeAll(async () => {
    id = (await create(t, subscription())).body.data.id;
  });

  it("200 with the subscription", async () => {
    const r = await call(t, "GET", `${BASE}/${id}`, { key: t.adminKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id, url: PUBLIC_URL, status: "active" });
  });

  it("404 for unknown, another tenant's and the other environment's subscriptions", async () => {
    const unknown = await call(t, "GET", `${BASE}/wh_00000000000000000000000000`, { key: t.adminKey });
    expect(unknown.status).toBe(404);
    expect(errorCode(unknown)).toBe("NotFound");
    const other = await t.otherTenant();
    expect((await call(t, "GET", `${BASE}/${id}`, { key: other.key })).status).toBe(404);
    const production = await t.key({ environment: "production" });
    expect((await call(t, "GET", `${BASE}/${id}`, { key: production })).status).toBe(404);
  });

  it("400 on an over-long id, 401 without a key, 403 without webhooks.read", async () => {
    expect((await call(t, "GET", `${BASE}/${"x".repeat(65)}`, { key: t.adminKey })).status).toBe(400);
    expect((await call(t, "GET", `${BASE}/${id}`)).status).toBe(401);
    const manageOnly = await t.key({ scopes: ["webhooks.manage"] });
    const r = await call(t, "GET", `${BASE}/${id}`, { key: manageOnly });
    expect(r.status).toBe(403);
    expect(errorCode(r)).toBe("MissingScope");
  });
});

describe("Webhooks_List", () => {
  it("pages through the caller's subscriptions in creation order", async () => {
    const other = await t.otherTenant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await create(t, subscription({ description: `n${i}` }), other.key);
      expect(r.status).toBe(201);
      ids.push(r.body.data.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call(t, "GET", `${BASE}?limit=2${cursor ? `&cursor=${cursor}` : ""}`, {
        key: other.key,
      });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((s: { id: string }) => s.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(ids);
    // Nothing of this tenant leaks into another's or the other environment's list.
    const mine = await call(t, "GET", `${BASE}?limit=100`, { key: t.adminKey });
    expect(mine.body.data.map((s: { id: string }) => s.id)).not.toContain(ids[0]);
    const production = await t.key({ environment: "production" });
    expect((await call(t, "GET", BASE, { key: production })).body).toEqual({ data: [], nextCursor: null });
  });

  it("400 on a bad limit or cursor, 401 without a key, 403 without webhooks.read", async () => {
    expect((await call(t, "GET", `${BASE}?limit=101`, { key: t.adminKey })).status).toBe(400);
    expect((await call(t, "GET", `${BASE}?cursor=bad`, { key: t.adminKey })).status).toBe(400);
    expect((await call(t, "GET", BASE)).status).toBe(401);
    const manageOnly = await t.key({ scopes: ["webhooks.manage"] });
    expect((await call(t, "GET", BASE, { key: manageOnly })).status).toBe(403);
  });
});

describe("Webhooks_Delete", () => {
  it("200 with the subscription as it was; afterwards it reads as 404 and is gone from the list", async () => {
    const created = (await create(t, subscription())).body.data;
    const r = await call(t, "DELETE", `${BASE}/${created.id}`, { key: t.adminKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: created.id, url: PUBLIC_URL });
    expect(r.body.data).not.toHaveProperty("secret");
    expect((await call(t, "GET", `${BASE}/${created.id}`, { key: t.adminKey })).status).toBe(404);
    const list = await call(t, "GET", `${BASE}?limit=100`, { key: t.adminKey });
    expect(list.body.data.map((s: { id: string }) => s.id)).not.toContain(created.id);
    const again = await call(t, "DELETE", `${BASE}/${created.id}`, { key: t.adminKey });
    expect(again.status).toBe(404);
    expect(errorCode(again)).toBe("NotFound");
    // Soft delete: the row (and so its delivery history) stays.
    const row = await t.server.database.prisma.webhookSubscription.findUniqueOrThrow({
      where: { id: created.id },
    });
    expect(row.deletedAt).toBeInstanceOf(Date);
  });

  it("404 for unknown, another tenant's and the other environment's subscriptions, which stay", async () => {
    const id = (await create(t, subscription())).body.data.id;
    const other = await t.otherTenant();
    const production = await t.key({ environment: "production" });
    expect(
      (await call(t, "DELETE", `${BASE}/wh_00000000000000000000000000`, { key: t.adminKey })).status,
    ).toBe(404);
    expect((await call(t, "DELETE", `${BASE}/${id}`, { key: other.key })).status).toBe(404);
    expect((await call(t, "DELETE", `${BASE}/${id}`, { key: production })).status).toBe(404);
    expect((await call(t, "GET", `${BASE}/${id}`, { key: t.adminKey })).status).toBe(200);
  });

  it("401 without a key, 403 without webhooks.manage", async () => {
    const id = (await create(t, subscription())).body.data.id;
    expect((await call(t, "DELETE", `${BASE}/${id}`)).status).toBe(401);
    const readOnly = await t.key({ scopes: ["webhooks.read"] });
    const r = await call(t, "DELETE", `${BASE}/${id}`, { key: readOnly });
    expect(r.status).toBe(403);
    expect(errorCode(r)).toBe("MissingScope");
    expect((await call(t, "GET", `${BASE}/${id}`, { key: t.adminKey })).status).toBe(200);
  });
});

describe("WebhookDeliveries_List", () => {
  let tenant: { tenantId: string; key: string };
  let subA: string;
  let subB: string;
  const deliveryIds: Record<string, string> = {};

  async function insertDelivery(
    name: string,
    row: {
      tenantId: string;
      environment?: Environment;
      subscriptionId: string;
      eventType: string;
      status: string;
    },
  ) {
    const id = newId("whd");
    deliveryIds[name] = id;
    const done = row.status !== "pending";
    await t.server.database.prisma.webhookDelivery.create({
      data: {
        id,
        environment: "sandbox",
        ...row,
        eventId: newId("evt"),
        attempts: done ? 2 : 0,
        lastAttemptAt: done ? new Date("2026-08-30T12:00:00Z") : null,
        lastResponseStatus: row.status === "succeeded" ? 200 : row.status === "failed" ? 500 : null,
        nextAttemptAt: row.status === "pending" ? new Date("2026-08-30T12:05:00Z") : null,
      },
    });
  }

  beforeAll(async () => {
    tenant = await t.otherTenant();
    subA = (await create(t, subscription(), tenant.key)).body.data.id;
    subB = (await create(t, subscription({ events: ["*"] }), tenant.key)).body.data.id;
    const mine = { tenantId: tenant.tenantId };
    await insertDelivery("a1", {
      ...mine,
      subscriptionId: subA,
      eventType: "verification.session.verified",
      status: "succeeded",
    });
    await insertDelivery("a2", {
      ...mine,
      subscriptionId: subA,
      eventType: "verification.session.rejected",
      status: "failed",
    });
    await insertDelivery("b1", {
      ...mine,
      subscriptionId: subB,
      eventType: "credential.revoked",
      status: "pending",
    });
    await insertDelivery("b2", {
      ...mine,
      subscriptionId: subB,
      eventType: "verification.session.verified",
      status: "succeeded",
    });
    await insertDelivery("b3", {
      ...mine,
      subscriptionId: subB,
      eventType: "issuer.activated",
      status: "failed",
    });
    // Rows the tenant's sandbox key must never see.
    await insertDelivery("foreign", {
      tenantId: t.tenantId,
      subscriptionId: subA,
      eventType: "credential.revoked",
      status: "pending",
    });
    await insertDelivery("production", {
      ...mine,
      environment: "production",
      subscriptionId: subA,
      eventType: "credential.revoked",
      status: "pending",
    });
  });

  const list = async (query = "", key = tenant.key) => {
    const r = await call(t, "GET", `${DELIVERIES}${query}`, { key });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as { data: any[]; nextCursor: string | null };
  };
  const idsOf = (page: { data: { id: string }[] }) => page.data.map((d) => d.id);
  const named = (...names: string[]) => names.map((n) => deliveryIds[n]);

  it("lists the tenant's deliveries with their attempt data, never another tenant's or environment's", async () => {
    const page = await list("?limit=100");
    expect(idsOf(page)).toEqual(named("a1", "a2", "b1", "b2", "b3"));
    expect(page.nextCursor).toBeNull();
    expect(page.data[0]).toEqual({
      id: deliveryIds.a1,
      subscriptionId: subA,
      eventId: expect.stringMatching(/^evt_/),
      eventType: "verification.session.verified",
      status: "succeeded",
      attempts: 2,
      lastAttemptAt: "2026-08-30T12:00:00.000Z",
      lastResponseStatus: 200,
      lastError: null,
      attemptLog: [],
      nextAttemptAt: null,
      createdAt: expect.any(String),
    });
    expect(page.data[2]).toMatchObject({
      status: "pending",
      attempts: 0,
      lastAttemptAt: null,
      lastResponseStatus: null,
    });
  });

  it("filters by subscription, status and event type, alone and combined", async () => {
    expect(idsOf(await list(`?subscriptionId=${subA}`))).toEqual(named("a1", "a2"));
    expect(idsOf(await list("?status=failed"))).toEqual(named("a2", "b3"));
    expect(idsOf(await list("?status=pending"))).toEqual(named("b1"));
    expect(idsOf(await list("?eventType=verification.session.verified"))).toEqual(named("a1", "b2"));
    expect(idsOf(await list(`?subscriptionId=${subB}&status=succeeded`))).toEqual(named("b2"));
    expect(idsOf(await list(`?subscriptionId=${subB}&status=failed&eventType=issuer.activated`))).toEqual(
      named("b3"),
    );
    expect(idsOf(await list(`?subscriptionId=${subA}&eventType=issuer.activated`))).toEqual([]);
    // Another tenant's subscription id selects nothing.
    expect(idsOf(await list(`?subscriptionId=${subA}`, t.adminKey))).toEqual(named("foreign"));
  });

  it("pages with a cursor, filters kept", async () => {
    const first = await list("?limit=2");
    expect(idsOf(first)).toEqual(named("a1", "a2"));
    const second = await list(`?limit=2&cursor=${first.nextCursor}`);
    expect(idsOf(second)).toEqual(named("b1", "b2"));
    const third = await list(`?limit=2&cursor=${second.nextCursor}`);
    expect(idsOf(third)).toEqual(named("b3"));
    expect(third.nextCursor).toBeNull();
    const filtered = await list(`?limit=1&subscriptionId=${subB}`);
    expect(idsOf(filtered)).toEqual(named("b1"));
    expect(idsOf(await list(`?limit=5&subscriptionId=${subB}&cursor=${filtered.nextCursor}`))).toEqual(
      named("b2", "b3"),
    );
  });

  it("keeps the deliveries of a deleted subscription", async () => {
    const sub = (await create(t, subscription(), tenant.key)).body.data.id;
    await insertDelivery("deleted", {
      tenantId: tenant.tenantId,
      subscriptionId: sub,
      eventType: "credential.revoked",
      status: "succeeded",
    });
    expect((await call(t, "DELETE", `${BASE}/${sub}`, { key: tenant.key })).status).toBe(200);
    expect(idsOf(await list(`?subscriptionId=${sub}`))).toEqual(named("deleted"));
  });

  it("400 on an unknown status or event type or a bad cursor", async () => {
    for (const query of ["?status=lost", "?eventType=credential.exploded", "?cursor=bad", "?limit=0"]) {
      const r = await call(t, "GET", `${DELIVERIES}${query}`, { key: tenant.key });
      expect(r.status, query).toBe(400);
      expect(errorCode(r)).toBe("ValidationFailed");
    }
  });

  it("401 without a key, 403 without webhooks.read", async () => {
    expect((await call(t, "GET", DELIVERIES)).status).toBe(401);
    const manageOnly = await t.key({ scopes: ["webhooks.manage"] });
    const r = await call(t, "GET", DELIVERIES, { key: manageOnly });
    expect(r.status).toBe(403);
    expect(errorCode(r)).toBe("MissingScope");
    const readOnly = await t.key({ scopes: ["webhooks.read"] });
    expect((await call(t, "GET", DELIVERIES, { key: readOnly })).status).toBe(200);
  });
});

describe("OpenAPI", () => {
  it("documents the webhook operations with their statuses and no secret outside creation", async () => {
    const doc = (await call(t, "GET", "/openapi.json")).body;
    const ops = {
      Webhooks_Create: doc.paths[BASE].post,
      Webhooks_List: doc.paths[BASE].get,
      Webhooks_Get: doc.paths[`${BASE}/{subscriptionId}`].get,
      Webhooks_Delete: doc.paths[`${BASE}/{subscriptionId}`].delete,
      WebhookDeliveries_List: doc.paths[DELIVERIES].get,
    };
    for (const [operationId, op] of Object.entries(ops)) expect(op.operationId).toBe(operationId);
    expect(Object.keys(ops.Webhooks_Create.responses)).toEqual(["201", "400", "401", "403", "429"]);
    expect(Object.keys(ops.Webhooks_Delete.responses)).toEqual(["200", "400", "401", "403", "404", "429"]);
    expect(doc.components.schemas.WebhookSubscription.properties).not.toHaveProperty("secret");
    expect(doc.components.schemas.WebhookSubscriptionWithSecret.properties).toHaveProperty("secret");
  });
});
