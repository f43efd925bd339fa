import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, issueCredential, policyTrusting, presentTo } from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

const ACTIVITY = "/v1.0/activity";
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

let t: TestServer;
let first: ActiveIssuer;
let second: ActiveIssuer;
/** Tenant B, with activity of its own that tenant A's counts must not include. */
let other: { tenantId: string; key: string };

/**
 * Tenant A's sandbox: three credentials of `first` (one revoked), one of `second`; under policy `trusting`
 * two sessions verified, under `distrusting` one rejected; a pending session counts nowhere. Tenant B
 * issues, verifies and revokes too.
 */
beforeAll(async () => {
  t = await startTestServer();
  first = await activeIssuer(t, t.adminKey);
  second = await activeIssuer(t, t.adminKey);
  await policyTrusting(t, t.adminKey, "trusting", first);
  await policyTrusting(t, t.adminKey, "distrusting", first, [{ issuerId: second.issuerId }]);
  const a = await issueCredential(t, t.adminKey, first);
  const b = await issueCredential(t, t.adminKey, first);
  const c = await issueCredential(t, t.adminKey, first);
  await issueCredential(t, t.adminKey, second);
  expect((await presentTo(t, t.adminKey, "trusting", a)).status).toBe("verified");
  expect((await presentTo(t, t.adminKey, "trusting", b)).status).toBe("verified");
  expect((await presentTo(t, t.adminKey, "distrusting", a)).status).toBe("rejected");
  expect(
    (await call(t, "POST", "/v1.0/verifications", { key: t.adminKey, body: { policy: "trusting" } })).status,
  ).toBe(201);
  const revoked = await call(t, "POST", `/v1.0/credentials/${c.credentialId}/revoke`, { key: t.adminKey });
  expect(revoked.status).toBe(200);

  other = await t.otherTenant();
  const foreign = await activeIssuer(t, other.key);
  await policyTrusting(t, other.key, "trusting", foreign);
  const f = await issueCredential(t, other.key, foreign);
  expect((await presentTo(t, other.key, "trusting", f)).status).toBe("verified");
  expect(
    (await call(t, "POST", `/v1.0/credentials/${f.credentialId}/revoke`, { key: other.key })).status,
  ).toBe(200);
}, 120_000);
afterAll(async () => {
  await t.close();
});

const activity = (query = "", key: string | null = t.adminKey) =>
  call(t, "GET", `${ACTIVITY}${query}`, { key });
const todayOf = (buckets: { start: string }[]) => buckets.find((b) => b.start === today());

describe("Activity_Get", () => {
  it("counts what was issued, verified, rejected and revoked, per day over the last 30 days by default", async () => {
    const res = await activity();
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ms-request-id")).toBeTruthy();
    const data = res.body.data;
    expect(data).toMatchObject({
      from: daysAgo(29),
      to: today(),
      interval: "day",
      groupBy: null,
      groups: [],
    });
    expect(data.total).toEqual({ issued: 4, verified: 2, rejected: 1, revoked: 1 });
    expect(data.buckets).toHaveLength(30);
    expect(data.buckets.map((b: { start: string }) => b.start)).toEqual(
      Array.from({ length: 30 }, (_, i) => daysAgo(29 - i)),
    );
    expect(todayOf(data.buckets)).toEqual({
      start: today(),
      issued: 4,
      verified: 2,
      rejected: 1,
      revoked: 1,
    });
    const earlier = data.buckets.filter((b: { start: string }) => b.start !== today());
    for (const bucket of earlier)
      expect(bucket).toMatchObject({ issued: 0, verified: 0, rejected: 0, revoked: 0 });
  });

  it("groups credentials per issuer and sessions per policy, most active first, with names", async () => {
    const byIssuer = (await activity("?groupBy=issuer")).body.data;
    expect(byIssuer.groupBy).toBe("issuer");
    expect(byIssuer.total).toEqual({ issued: 4, verified: 2, rejected: 1, revoked: 1 });
    expect(byIssuer.groups.map((g: { key: string }) => g.key)).toEqual([first.issuerId, second.issuerId]);
    expect(byIssuer.groups[0]).toMatchObject({
      name: expect.stringMatching(/^Issuer \d+$/),
      total: { issued: 3, revoked: 1, verified: null, rejected: null },
    });
    expect(byIssuer.groups[1].total).toEqual({ issued: 1, revoked: 0, verified: null, rejected: null });
    expect(todayOf(byIssuer.groups[0].buckets)).toEqual({
      start: today(),
      issued: 3,
      revoked: 1,
      verified: null,
      rejected: null,
    });

    const byPolicy = (await activity("?groupBy=policy&interval=day")).body.data;
    expect(byPolicy.groups).toEqual([
      expect.objectContaining({
        key: "trusting",
        name: "trusting",
        total: { issued: null, revoked: null, verified: 2, rejected: 0 },
      }),
      expect.objectContaining({
        key: "distrusting",
        total: { issued: null, revoked: null, verified: 0, rejected: 1 },
      }),
    ]);
  });

  it("counts only within the range asked for", async () => {
    const past = (await activity(`?from=${daysAgo(10)}&to=${daysAgo(1)}`)).body.data;
    expect(past.buckets).toHaveLength(10);
    expect(past.total).toEqual({ issued: 0, verified: 0, rejected: 0, revoked: 0 });
    const one = (await activity(`?from=${today()}&to=${today()}`)).body.data;
    expect(one.buckets).toHaveLength(1);
    expect(one.total).toEqual({ issued: 4, verified: 2, rejected: 1, revoked: 1 });
    const year = await activity(`?from=${daysAgo(365)}&to=${today()}`);
    expect(year.status).toBe(200);
    expect(year.body.data.buckets).toHaveLength(366);
  });

  it("refuses a bad range or parameter with 400 in the error envelope", async () => {
    for (const [query, target] of [
      [`?from=${today()}&to=${daysAgo(1)}`, "from"],
      [`?from=${daysAgo(366)}&to=${today()}`, "from"],
      [`?from=2026-02-30`, "from"],
      [`?to=yesterday`, "to"],
      [`?interval=hour`, "interval"],
      [`?groupBy=tenant`, "groupBy"],
    ] as const) {
      const res = await activity(query);
      expect([query, res.status]).toEqual([query, 400]);
      expect(errorCode(res)).toBe("ValidationFailed");
      expect(res.body.error.details.map((d: { target: string }) => d.target)).toContain(target);
    }
  });

  it("401 without a key", async () => {
    const res = await activity("", null);
    expect(res.status).toBe(401);
    expect(errorCode(res)).toBe("Unauthenticated");
  });

  it("403 MissingScope for a key without credentials.read or without verification.read", async () => {
    for (const scopes of [["credentials.read"], ["verification.read"], ["issuers.read"]] as const) {
      const res = await activity("", await t.key({ scopes: [...scopes] }));
      expect([scopes, res.status]).toEqual([scopes, 403]);
      expect(errorCode(res)).toBe("MissingScope");
    }
    const both = await activity("", await t.key({ scopes: ["credentials.read", "verification.read"] }));
    expect(both.status).toBe(200);
  });

  it("counts only the caller's tenant and environment", async () => {
    const b = (await activity("?groupBy=issuer", other.key)).body.data;
    expect(b.total).toEqual({ issued: 1, verified: 1, rejected: 0, revoked: 1 });
    expect(b.groups).toHaveLength(1);
    expect([first.issuerId, second.issuerId]).not.toContain(b.groups[0].key);
    const production = (await activity("?groupBy=policy", await t.key({ environment: "production" }))).body
      .data;
    expect(production.total).toEqual({ issued: 0, verified: 0, rejected: 0, revoked: 0 });
    expect(production.groups).toEqual([]);
  });

  it("an issuer-bound key counts only its issuer's credentials", async () => {
    const bound = await t.key({ issuerId: second.issuerId });
    const data = (await activity("?groupBy=issuer", bound)).body.data;
    expect(data.total).toEqual({ issued: 1, verified: 2, rejected: 1, revoked: 0 });
    expect(data.groups.map((g: { key: string }) => g.key)).toEqual([second.issuerId]);
  });
});
