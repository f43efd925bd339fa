import { PLATFORM_SCOPE, resetStaffPassword, SCOPES } from "@cred/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleSession, consoleCall, trySignIn } from "./fixtures/console-session";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

/**
 * Tenant administration by platform operators (issue #26, docs/api/tenants.md): the Tenants_*
 * operations, the platform.manage scope no tenant key or role can hold, and suspension, which refuses a
 * tenant's keys and console users on every operation until reactivation.
 */

const BASE = "/management/tenants";
let t: TestServer;
let platformKey: string;

type Session = ConsoleSession;
const trpc = (method: "GET" | "POST", path: string, input: unknown, session?: Session) =>
  consoleCall(t, method, path, input, session);

async function signIn(email: string, password: string): Promise<Session> {
  const session = await trySignIn(t, email, password);
  expect(session, `sign-in of ${email}`).not.toBeNull();
  return session!;
}

/** A new tenant with its first admin and an all-scope sandbox key of its own. */
async function newTenant(name: string) {
  const email = `admin-${Math.random().toString(36).slice(2)}@tenant.example`;
  const created = await call(t, "POST", BASE, { key: platformKey, body: { name, adminEmail: email } });
  expect(created.status).toBe(201);
  const tenantId = created.body.data.id as string;
  return {
    tenantId,
    email,
    password: created.body.data.admin.temporaryPassword as string,
    key: await t.key({ tenantId }),
  };
}

beforeAll(async () => {
  t = await startTestServer();
  platformKey = await t.key({ scopes: [PLATFORM_SCOPE] });
});
afterAll(() => t?.close());

describe("Tenants_* (platform operations)", () => {
  it("Tenants_Create makes an active tenant and its first admin, whose one-time password signs in", async () => {
    const r = await call(t, "POST", BASE, {
      key: platformKey,
      body: { name: "Acme Bank", adminEmail: "First.Admin@Acme.example" },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("x-ms-request-id")).toBeTruthy();
    expect(r.body.data).toMatchObject({ name: "Acme Bank", status: "active", suspendedAt: null });
    expect(r.body.data.id).toMatch(/^ten_/);
    expect(r.body.data.admin).toMatchObject({ email: "first.admin@acme.example", role: "admin" });
    const session = await signIn("first.admin@acme.example", r.body.data.admin.temporaryPassword);
    const me = await trpc("GET", "staff.me", undefined, session);
    expect(me.body.result.data.data.tenant.id).toBe(r.body.data.id);
    // A tenant admin is no platform operator.
    expect(me.body.result.data.data.scopes).not.toContain(PLATFORM_SCOPE);
    expect((await trpc("GET", "tenants.list", {}, session)).body.error.data.envelope.error.code).toBe(
      "MissingScope",
    );

    const bare = await call(t, "POST", BASE, { key: platformKey, body: { name: "No admin yet" } });
    expect(bare.status).toBe(201);
    expect(bare.body.data.admin).toBeNull();
  });

  it("Tenants_List pages through every tenant; Tenants_Get reads one; unknown → 404", async () => {
    const { tenantId } = await newTenant("Listed");
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call(t, "GET", `${BASE}?limit=1${cursor ? `&cursor=${cursor}` : ""}`, {
        key: platformKey,
      });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(1);
      all.push(...page.body.data.map((x: { id: string }) => x.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(all).toContain(tenantId);
    expect(all).toContain(t.tenantId);
    expect(new Set(all).size).toBe(all.length);

    const got = await call(t, "GET", `${BASE}/${tenantId}`, { key: platformKey });
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({ id: tenantId, name: "Listed", status: "active" });

    for (const [method, path, body] of [
      ["GET", `${BASE}/ten_unknown`, undefined],
      ["POST", `${BASE}/ten_unknown/suspend`, {}],
      ["POST", `${BASE}/ten_unknown/reactivate`, {}],
      ["POST", `${BASE}/ten_unknown/admins`, { email: "nobody@unknown.example" }],
    ] as const) {
      const r = await call(t, method, path, { key: platformKey, body });
      expect([path, r.status]).toEqual([path, 404]);
      expect(errorCode(r)).toBe("NotFound");
    }
  });

  it("Tenants_CreateAdmin adds an admin; an e-mail in use → 409 and no tenant is made by Create", async () => {
    const { tenantId, email } = await newTenant("Second admin");
    const r = await call(t, "POST", `${BASE}/${tenantId}/admins`, {
      key: platformKey,
      body: { email: "second@tenant.example" },
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ email: "second@tenant.example", role: "admin" });
    await signIn("second@tenant.example", r.body.data.temporaryPassword);

    const again = await call(t, "POST", `${BASE}/${tenantId}/admins`, { key: platformKey, body: { email } });
    expect(again.status).toBe(409);
    expect(errorCode(again)).toBe("AlreadyExists");
    const before = (await call(t, "GET", `${BASE}?limit=100`, { key: platformKey })).body.data.length;
    const clash = await call(t, "POST", BASE, {
      key: platformKey,
      body: { name: "Clash", adminEmail: email },
    });
    expect(clash.status).toBe(409);
    expect((await call(t, "GET", `${BASE}?limit=100`, { key: platformKey })).body.data.length).toBe(before);
  });

  it("400 for invalid input", async () => {
    for (const [path, body] of [
      [BASE, {}],
      [BASE, { name: "" }],
      [BASE, { name: "x", adminEmail: "not an e-mail" }],
      [BASE, { name: "x", unknown: 1 }],
      [`${BASE}/${t.tenantId}/admins`, { email: "nope" }],
    ] as const) {
      const r = await call(t, "POST", path, { key: platformKey, body });
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 400]);
      expect(errorCode(r)).toBe("ValidationFailed");
    }
    const r = await call(t, "GET", `${BASE}?limit=0`, { key: platformKey });
    expect(r.status).toBe(400);
  });

  it("401 without a key; 403 MissingScope for a tenant key with every tenant scope, and for a tenant admin", async () => {
    const unauth = await call(t, "GET", BASE);
    expect(unauth.status).toBe(401);
    expect(errorCode(unauth)).toBe("Unauthenticated");
    for (const [method, path] of [
      ["POST", BASE],
      ["GET", BASE],
      ["GET", `${BASE}/${t.tenantId}`],
      ["POST", `${BASE}/${t.tenantId}/suspend`],
      ["POST", `${BASE}/${t.tenantId}/reactivate`],
      ["POST", `${BASE}/${t.tenantId}/admins`],
    ] as const) {
      const r = await call(t, method, path, {
        key: t.adminKey,
        body: method === "POST" ? { name: "x" } : undefined,
      });
      expect([path, r.status]).toEqual([path, 403]);
      expect(errorCode(r)).toBe("MissingScope");
    }
  });

  it("a tenant can never be granted platform.manage: the bootstrap key lacks it and ApiKeys create refuses it (400)", async () => {
    const password = (await resetStaffPassword(t.server.database.root, "admin@localhost")).password;
    const operator = await signIn("admin@localhost", password);
    // The bootstrap admin is the platform operator: the console shows it the Tenants page.
    const me = await trpc("GET", "staff.me", undefined, operator);
    expect(me.body.result.data.data.scopes).toContain(PLATFORM_SCOPE);
    const refused = await trpc(
      "POST",
      "apiKeys.create",
      { name: "sneaky", scopes: [PLATFORM_SCOPE] },
      operator,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.data.envelope.error.code).toBe("ValidationFailed");
    const mixed = await trpc(
      "POST",
      "apiKeys.create",
      { name: "sneaky", scopes: [...SCOPES, PLATFORM_SCOPE] },
      operator,
    );
    expect(mixed.status).toBe(400);
    // The platform operator's session reaches the platform operations through the console.
    const listed = await trpc("GET", "tenants.list", {}, operator);
    expect(listed.status).toBe(200);
    expect(listed.body.result.data.data.map((x: { id: string }) => x.id)).toContain(t.tenantId);
  });

  it("suspension refuses the tenant's keys and staff on every operation (403 TenantSuspended); reactivation restores them", async () => {
    const tenant = await newTenant("Suspended soon");
    const session = await signIn(tenant.email, tenant.password);
    expect((await call(t, "GET", "/management/organisations", { key: tenant.key })).status).toBe(200);

    const suspended = await call(t, "POST", `${BASE}/${tenant.tenantId}/suspend`, {
      key: platformKey,
      body: {},
    });
    expect(suspended.status).toBe(200);
    expect(suspended.body.data).toMatchObject({ id: tenant.tenantId, status: "suspended" });
    expect(suspended.body.data.suspendedAt).toEqual(expect.any(String));

    // From the very next request (this process drops its cached status), on both planes.
    for (const [method, path] of [
      ["GET", "/management/organisations"],
      ["POST", "/management/organisations"],
      ["GET", "/v1.0/issuance-transactions"],
      ["GET", "/management/audit-events"],
    ] as const) {
      const r = await call(t, method, path, {
        key: tenant.key,
        body: method === "POST" ? { reference: "acme", displayName: "Acme" } : undefined,
      });
      expect([path, r.status]).toEqual([path, 403]);
      expect(errorCode(r)).toBe("TenantSuspended");
    }
    const staff = await trpc("GET", "organisations.list", {}, session);
    expect(staff.status).toBe(403);
    expect(staff.body.error.data.envelope.error.code).toBe("TenantSuspended");
    // A new console sign-in is refused with the same code, and leaves no session behind.
    const signInRefused = await trpc("POST", "staff.signIn", {
      email: tenant.email,
      password: tenant.password,
    });
    expect(signInRefused.status).toBe(403);
    expect(signInRefused.body.error.data.envelope.error.code).toBe("TenantSuspended");
    // Other tenants are untouched.
    expect((await call(t, "GET", "/management/organisations", { key: t.adminKey })).status).toBe(200);

    const twice = await call(t, "POST", `${BASE}/${tenant.tenantId}/suspend`, { key: platformKey, body: {} });
    expect(twice.status).toBe(409);
    expect(errorCode(twice)).toBe("InvalidState");

    const back = await call(t, "POST", `${BASE}/${tenant.tenantId}/reactivate`, {
      key: platformKey,
      body: {},
    });
    expect(back.status).toBe(200);
    expect(back.body.data).toMatchObject({ status: "active", suspendedAt: null });
    expect((await call(t, "GET", "/management/organisations", { key: tenant.key })).status).toBe(200);
    expect((await trpc("GET", "organisations.list", {}, session)).status).toBe(200);
    await signIn(tenant.email, tenant.password);

    const active = await call(t, "POST", `${BASE}/${tenant.tenantId}/reactivate`, {
      key: platformKey,
      body: {},
    });
    expect(active.status).toBe(409);
    expect(errorCode(active)).toBe("InvalidState");
  });

  it("the caller's own tenant cannot be suspended (409)", async () => {
    const r = await call(t, "POST", `${BASE}/${t.tenantId}/suspend`, { key: platformKey, body: {} });
    expect(r.status).toBe(409);
    expect(errorCode(r)).toBe("InvalidState");
  });

  it("audits a platform operation in the affected tenant's trail", async () => {
    const tenant = await newTenant("Audited");
    await call(t, "POST", `${BASE}/${tenant.tenantId}/suspend`, { key: platformKey, body: {} });
    await call(t, "POST", `${BASE}/${tenant.tenantId}/reactivate`, { key: platformKey, body: {} });
    const trail = await call(t, "GET", "/management/audit-events?limit=100", { key: tenant.key });
    expect(trail.status).toBe(200);
    const operations = trail.body.data.map((e: { operation: string }) => e.operation);
    expect(operations).toEqual(
      expect.arrayContaining(["Tenants_Create", "Tenants_Suspend", "Tenants_Reactivate"]),
    );
    const suspend = trail.body.data.find((e: { operation: string }) => e.operation === "Tenants_Suspend");
    expect(suspend).toMatchObject({ target: { type: "tenant", id: tenant.tenantId }, outcome: "succeeded" });
    // Not in the operator's own trail.
    const own = await call(t, "GET", "/management/audit-events?limit=100", { key: t.adminKey });
    expect(
      own.body.data.filter(
        (e: { operation: string; target: { id: string } }) =>
          e.operation === "Tenants_Suspend" && e.target.id === tenant.tenantId,
      ),
    ).toEqual([]);
  });
});
