import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Receiver, receiver, verify, webhookHelpers } from "./fixtures/webhooks";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

const BASE = "/management/webhooks";
/** Public address literals: accepted without DNS (the test machine may have none). */
const PUBLIC_URL = "https://93.184.215.14/hooks/credentials";
const OTHER_PUBLIC_URL = "https://93.184.215.15/hooks/v2";

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

const { worker, tenant, subscribe, issue } = webhookHelpers(() => t);

async function subscription(key = t.adminKey, overrides: Record<string, unknown> = {}) {
  const r = await call(t, "POST", BASE, {
    key,
    body: {
      url: PUBLIC_URL,
      events: ["verification.session.verified"],
      description: "Checkout backend",
      ...overrides,
    },
  });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; secret: string; updatedAt: string; createdAt: string };
}

const patch = (id: string, body: unknown, key = t.adminKey) =>
  call(t, "PATCH", `${BASE}/${id}`, { key, body });

describe("Webhooks_Update", () => {
  it("200: changes url, events and description, leaves the secret, and Get shows the change", async () => {
    const sub = await subscription();
    const r = await patch(sub.id, {
      url: OTHER_PUBLIC_URL,
      events: ["verification.session.verified", "verification.session.rejected"],
      description: "Checkout backend v2",
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      id: sub.id,
      url: OTHER_PUBLIC_URL,
      events: ["verification.session.verified", "verification.session.rejected"],
      description: "Checkout backend v2",
      status: "active",
      createdAt: sub.createdAt,
    });
    expect(r.body.data).not.toHaveProperty("secret");
    const read = await call(t, "GET", `${BASE}/${sub.id}`, { key: t.adminKey });
    expect(read.body.data).toEqual(r.body.data);
    const row = await t.server.database.prisma.webhookSubscription.findUniqueOrThrow({
      where: { id: sub.id },
    });
    expect(t.server.deps.secretBox.open(row.secretCipher, sub.id)).toBe(sub.secret);
  });

  it("description null clears it; events ['*'] subscribes to all; an empty patch changes nothing", async () => {
    const sub = await subscription();
    const cleared = await patch(sub.id, { description: null, events: ["*"] });
    expect(cleared.body.data).toMatchObject({ description: null, events: ["*"] });
    const same = await patch(sub.id, {});
    expect(same.status).toBe(200);
    expect(same.body.data).toEqual(cleared.body.data);
  });

  it("status disabled stops it with a reason, status active resumes it and clears the reason", async () => {
    const sub = await subscription();
    const off = await patch(sub.id, { status: "disabled" });
    expect(off.body.data).toMatchObject({
      status: "disabled",
      disabledReason: "Disabled through Webhooks_Update.",
    });
    // Disabled by the worker (410 Gone): the worker's reason stays when it is disabled again …
    await t.server.database.prisma.webhookSubscription.update({
      where: { id: sub.id },
      data: { disabledReason: "The endpoint answered 410 Gone." },
    });
    const again = await patch(sub.id, { status: "disabled" });
    expect(again.body.data.disabledReason).toBe("The endpoint answered 410 Gone.");
    // … and the subscription can be resumed.
    const on = await patch(sub.id, { status: "active" });
    expect(on.body.data).toMatchObject({ status: "active", disabledReason: null });
  });

  it.each([
    [{ url: "https://10.0.0.1/hook" }, "WebhookUrlNotAllowed", "ForbiddenAddress"],
    [{ url: "https://169.254.169.254/latest/meta-data/" }, "WebhookUrlNotAllowed", "MetadataHost"],
    [{ url: "http://93.184.215.14/hook" }, "WebhookUrlNotAllowed", "HttpsRequired"],
    [{ url: "https://user:pass@93.184.215.14/hook" }, "WebhookUrlNotAllowed", "CredentialsInUrl"],
    [{ url: "not a url" }, "ValidationFailed", undefined],
    [{ events: [] }, "ValidationFailed", undefined],
    [{ events: ["no.such.event"] }, "ValidationFailed", undefined],
    [{ events: ["*", "verification.session.verified"] }, "ValidationFailed", undefined],
    [{ status: "paused" }, "ValidationFailed", undefined],
    [{ colour: "red" }, "ValidationFailed", undefined],
  ])("400 for %j (%s), and the subscription stays as it was", async (body, code, reason) => {
    const sub = await subscription();
    const r = await patch(sub.id, body);
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe(code);
    if (reason)
      expect(r.body.error.details).toEqual([expect.objectContaining({ code: reason, target: "url" })]);
    const read = await call(t, "GET", `${BASE}/${sub.id}`, { key: t.adminKey });
    expect(read.body.data).toMatchObject({ url: PUBLIC_URL, events: ["verification.session.verified"] });
  });

  it("400 ReadOnlyField for the secret (pointing at Webhooks_RotateSecret) and other read-only members", async () => {
    const sub = await subscription();
    const r = await patch(sub.id, { secret: "whsec_AAAA", id: "wh_other" });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("ReadOnlyField");
    expect(r.body.error.message).toContain("Webhooks_RotateSecret");
    expect(r.body.error.details.map((d: { target: string }) => d.target).sort()).toEqual(["id", "secret"]);
  });

  it("404 for an unknown and for a deleted subscription", async () => {
    expect(errorCode(await patch("wh_01jd5x6c3v8w9y0z1a2b3c4d5e", { description: "x" }))).toBe("NotFound");
    const sub = await subscription();
    expect((await call(t, "DELETE", `${BASE}/${sub.id}`, { key: t.adminKey })).status).toBe(200);
    const r = await patch(sub.id, { description: "back" });
    expect(r.status).toBe(404);
    expect(errorCode(r)).toBe("NotFound");
  });

  it("401 without a key, 403 for a key with webhooks.read only", async () => {
    const sub = await subscription();
    const anonymous = await patch(sub.id, { description: "x" }, "");
    expect(anonymous.status).toBe(401);
    errorCode(anonymous);
    const reader = await t.key({ scopes: ["webhooks.read"] });
    const r = await patch(sub.id, { description: "x" }, reader);
    expect(r.status).toBe(403);
    errorCode(r);
    const manager = await t.key({ scopes: ["webhooks.manage"] });
    expect((await patch(sub.id, { description: "managed" }, manager)).status).toBe(200);
  });

  it("404 across tenants and across environments, and the subscription stays unchanged", async () => {
    const sub = await subscription();
    const other = await t.otherTenant();
    const production = await t.key({ environment: "production" });
    for (const key of [other.key, production]) {
      const r = await patch(sub.id, { url: OTHER_PUBLIC_URL, status: "disabled" }, key);
      expect(r.status).toBe(404);
      expect(errorCode(r)).toBe("NotFound");
    }
    const read = await call(t, "GET", `${BASE}/${sub.id}`, { key: t.adminKey });
    expect(read.body.data).toMatchObject({ url: PUBLIC_URL, status: "active" });
  });

  it("is audited against the subscription (webhookSubscription), success and refusal alike", async () => {
    const sub = await subscription();
    await patch(sub.id, { description: "audited" });
    await patch(sub.id, { url: "https://10.0.0.1/x" });
    const events = await call(
      t,
      "GET",
      `/management/audit-events?operation=Webhooks_Update&targetId=${sub.id}`,
      {
        key: t.adminKey,
      },
    );
    expect(events.status).toBe(200);
    expect(events.body.data.map((e: { target: unknown; status: number }) => [e.target, e.status])).toEqual([
      [{ type: "webhookSubscription", id: sub.id }, 400],
      [{ type: "webhookSubscription", id: sub.id }, 200],
    ]);
  });
});

describe("Webhooks_Update and delivery", () => {
  let before: Receiver;
  let after: Receiver;
  beforeAll(async () => {
    [before, after] = await Promise.all([receiver(), receiver()]);
  });
  afterAll(async () => {
    await Promise.all([before.close(), after.close()]);
  });

  it("events after a URL change go to the new URL, signed with the unchanged secret; a disabled subscription gets none", async () => {
    const { key, issuer } = await tenant();
    const sub = await subscribe(key, before.url, ["issuance.transaction.created"]);
    expect((await patch(sub.id, { url: after.url }, key)).status).toBe(200);
    const first = await issue(key, issuer);
    await worker().runOnce();
    expect(before.received.filter((r) => r.body.includes(first.id))).toEqual([]);
    const delivered = after.received.filter((r) => r.body.includes(first.id));
    expect(delivered.map((r) => verify(sub.secret, r).type)).toEqual(["issuance.transaction.created"]);

    expect((await patch(sub.id, { status: "disabled" }, key)).status).toBe(200);
    const second = await issue(key, issuer);
    await worker().runOnce();
    expect(after.received.filter((r) => r.body.includes(second.id))).toEqual([]);
  });
});
