import { createStaffUser, grantStaffMembership } from "@cred/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness";

/** HTTP tests of the console's tRPC endpoint (/trpc): staff sign-in, session cookie, CSRF and roles. */
let t: TestServer;
const PASSWORD = "correct horse battery staple";

beforeAll(async () => {
  t = await startTestServer();
  const db = t.server.database.prisma;
  for (const role of ["admin", "operator", "viewer"] as const) {
    await createStaffUser(db, {
      tenantId: t.tenantId,
      email: `${role}@example.test`,
      password: PASSWORD,
      role,
    });
  }
});
afterAll(() => t?.close());

interface Session {
  cookie: string;
  csrf: string;
}

async function trpc(
  method: "GET" | "POST",
  path: string,
  options: { input?: unknown; session?: Session; csrf?: string | null } = {},
) {
  const url = new URL(`/trpc/${path}`, t.baseUrl);
  const headers: Record<string, string> = {};
  if (options.session) headers.cookie = options.session.cookie;
  const csrf = options.csrf === undefined ? options.session?.csrf : options.csrf;
  if (csrf) headers["x-csrf-token"] = csrf;
  let body: string | undefined;
  if (method === "GET") {
    if (options.input !== undefined) url.searchParams.set("input", JSON.stringify(options.input));
  } else {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.input ?? {});
  }
  const res = await fetch(url, { method, headers, body });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

async function signIn(email: string): Promise<Session> {
  const r = await trpc("POST", "staff.signIn", { input: { email, password: PASSWORD } });
  expect(r.status).toBe(200);
  const setCookie = r.headers.get("set-cookie") ?? "";
  return { cookie: setCookie.split(";")[0]!, csrf: r.body.result.data.data.csrfToken };
}

describe("staff sign-in", () => {
  it("sets an httpOnly SameSite=Lax session cookie and returns the session with its CSRF token", async () => {
    const r = await trpc("POST", "staff.signIn", {
      input: { email: "Admin@Example.test", password: PASSWORD },
    });
    expect(r.status).toBe(200);
    const cookie = r.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^cp_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=43200$/);
    const data = r.body.result.data.data;
    expect(data.user).toMatchObject({ email: "admin@example.test", role: "admin" });
    expect(data.tenant.id).toBe(t.tenantId);
    expect(data.environment).toBe("sandbox");
    expect(data.csrfToken).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(r.headers.get("x-ms-request-id")).toBeTruthy();
  });

  it("stops password guessing for an address after ten failures, while other addresses sign in", async () => {
    const email = "guessed@example.test";
    await createStaffUser(t.server.database.prisma, {
      tenantId: t.tenantId,
      email,
      password: PASSWORD,
      role: "viewer",
    });
    const wrong = () => trpc("POST", "staff.signIn", { input: { email, password: "wrong password" } });
    for (let i = 0; i < 10; i++) expect((await wrong()).status).toBe(401);
    const blocked = await wrong();
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    // Even the right password waits now; successful sign-ins elsewhere spend nothing.
    const right = await trpc("POST", "staff.signIn", { input: { email, password: PASSWORD } });
    expect(right.status).toBe(429);
    for (let i = 0; i < 12; i++) await signIn("operator@example.test");
  });

  it("refuses a batch of more calls than the console sends (16)", async () => {
    const calls = Array.from({ length: 17 }, () => "staff.me").join(",");
    const res = await fetch(new URL(`/trpc/${calls}?batch=1&input=${encodeURIComponent("{}")}`, t.baseUrl));
    expect(res.status).toBe(400);
    const ok = await fetch(
      new URL(
        `/trpc/${calls.split(",").slice(1).join(",")}?batch=1&input=${encodeURIComponent("{}")}`,
        t.baseUrl,
      ),
    );
    expect(ok.status).toBe(200);
  });

  it("answers a wrong password and an unknown email alike with 401 Unauthenticated", async () => {
    for (const email of ["admin@example.test", "nobody@example.test"]) {
      const r = await trpc("POST", "staff.signIn", { input: { email, password: "wrong password" } });
      expect(r.status).toBe(401);
      expect(r.headers.get("set-cookie")).toBeNull();
      expect(r.body.error.data.envelope.error).toMatchObject({
        code: "Unauthenticated",
        message: "The email address or password is not correct.",
        requestId: r.headers.get("x-ms-request-id"),
      });
    }
  });

  it("staff.me returns null without a session and the session with one", async () => {
    const anonymous = await trpc("GET", "staff.me");
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.result.data.data).toBeNull();
    const session = await signIn("viewer@example.test");
    const me = await trpc("GET", "staff.me", { session });
    expect(me.body.result.data.data).toMatchObject({ user: { role: "viewer" }, csrfToken: session.csrf });
  });

  it("sign-out ends the session and clears the cookie", async () => {
    const session = await signIn("operator@example.test");
    const out = await trpc("POST", "staff.signOut", { session });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/^cp_session=; .*Max-Age=0/);
    const me = await trpc("GET", "staff.me", { session });
    expect(me.body.result.data.data).toBeNull();
    const list = await trpc("GET", "organisations.list", { session, input: {} });
    expect(list.status).toBe(401);
  });

  it("ignores API keys on the console endpoint", async () => {
    const res = await fetch(new URL("/trpc/organisations.list?input=%7B%7D", t.baseUrl), {
      headers: { authorization: `ApiKey ${t.adminKey}` },
    });
    expect(res.status).toBe(401);
  });
});

describe("CSRF", () => {
  it("refuses a staff mutation without x-csrf-token, or with another session's, with 403", async () => {
    const session = await signIn("admin@example.test");
    const other = await signIn("operator@example.test");
    const input = { reference: "csrf-org", displayName: "CSRF org" };
    for (const csrf of [null, other.csrf, "x"]) {
      const r = await trpc("POST", "organisations.create", { session, csrf, input });
      expect(r.status).toBe(403);
      expect(r.body.error.data.envelope.error.code).toBe("CsrfTokenInvalid");
    }
    const ok = await trpc("POST", "organisations.create", { session, input });
    expect(ok.status).toBe(200);
    expect(ok.body.result.data.data.reference).toBe("csrf-org");
  });

  it("lets queries through without the header", async () => {
    const session = await signIn("viewer@example.test");
    const r = await trpc("GET", "organisations.list", { session, csrf: null, input: {} });
    expect(r.status).toBe(200);
  });
});

describe("roles", () => {
  it("a viewer can read but not change anything (403 MissingScope)", async () => {
    const session = await signIn("viewer@example.test");
    const list = await trpc("GET", "issuers.list", { session, input: {} });
    expect(list.status).toBe(200);
    const r = await trpc("POST", "organisations.create", {
      session,
      input: { reference: "viewer-org", displayName: "Viewer org" },
    });
    expect(r.status).toBe(403);
    expect(r.body.error.data.envelope.error.code).toBe("MissingScope");
  });

  it("an operator cannot manage webhooks; only an admin manages API keys", async () => {
    const operator = await signIn("operator@example.test");
    const webhook = await trpc("POST", "webhooks.create", {
      session: operator,
      input: { url: "https://hooks.example.com/x", events: ["*"] },
    });
    expect(webhook.status).toBe(403);
    const keys = await trpc("GET", "apiKeys.list", { session: operator });
    expect(keys.status).toBe(403);

    const admin = await signIn("admin@example.test");
    const created = await trpc("POST", "apiKeys.create", {
      session: admin,
      input: { name: "ci", scopes: ["organisations.read"] },
    });
    expect(created.status).toBe(200);
    const key = created.body.result.data.data;
    expect(key.key).toMatch(/^ak_/);
    const useIt = await fetch(new URL("/management/organisations?api-version=2026-08-30", t.baseUrl), {
      headers: { authorization: `ApiKey ${key.key}` },
    });
    expect(useIt.status).toBe(200);
    const listed = await trpc("GET", "apiKeys.list", { session: admin });
    const row = listed.body.result.data.data.find((k: { id: string }) => k.id === key.id);
    expect(row).toMatchObject({ status: "active", scopes: ["organisations.read"] });
    expect(row.key).toBeUndefined();
    const revoked = await trpc("POST", "apiKeys.revoke", { session: admin, input: { id: key.id } });
    expect(revoked.body.result.data.data.status).toBe("revoked");
    const refused = await fetch(new URL("/management/organisations?api-version=2026-08-30", t.baseUrl), {
      headers: { authorization: `ApiKey ${key.key}` },
    });
    expect(refused.status).toBe(401);
    const expired = await trpc("POST", "apiKeys.create", {
      session: admin,
      input: { name: "born expired", scopes: ["organisations.read"], expiresAt: "2020-01-01T23:59:59.999Z" },
    });
    expect(expired.status).toBe(400);
    expect(expired.body.error.data.envelope.error.details).toEqual([
      expect.objectContaining({ target: "expiresAt" }),
    ]);
  });
});

describe("environment switcher and dashboard", () => {
  it("switches the session's environment; resources are partitioned by it", async () => {
    const session = await signIn("admin@example.test");
    await trpc("POST", "organisations.create", {
      session,
      input: { reference: "sandbox-only", displayName: "Sandbox only" },
    });
    const switched = await trpc("POST", "staff.switchEnvironment", {
      session,
      input: { environment: "production" },
    });
    expect(switched.body.result.data.data.environment).toBe("production");
    const list = await trpc("GET", "organisations.list", { session, input: {} });
    expect(list.body.result.data.data.map((o: { reference: string }) => o.reference)).not.toContain(
      "sandbox-only",
    );
    await trpc("POST", "staff.switchEnvironment", { session, input: { environment: "sandbox" } });
  });

  it("dashboard.summary counts per day", async () => {
    const session = await signIn("viewer@example.test");
    const r = await trpc("GET", "dashboard.summary", { session, input: { days: 7 } });
    expect(r.status).toBe(200);
    const data = r.body.result.data.data;
    expect(data.daily).toHaveLength(7);
    expect(data.daily[6].day).toBe(new Date().toISOString().slice(0, 10));
    expect(data.totals.organisations).toBeGreaterThan(0);
  });
});

describe("tenant switcher", () => {
  const OTHER = "ten_console_other";
  const STRANGER = "ten_console_stranger";

  beforeAll(async () => {
    const db = t.server.database.prisma;
    await db.tenant.create({ data: { id: OTHER, name: "Other tenant" } });
    await db.tenant.create({ data: { id: STRANGER, name: "Not a member" } });
    await createStaffUser(db, {
      tenantId: t.tenantId,
      email: "multi@example.test",
      password: PASSWORD,
      role: "admin",
    });
    await grantStaffMembership(db, { email: "multi@example.test", tenantId: OTHER, role: "viewer" });
    // Granting again changes the role (upsert).
    await grantStaffMembership(db, { email: "multi@example.test", tenantId: OTHER, role: "admin" });
    const viewer = await createStaffUser(db, {
      tenantId: t.tenantId,
      email: "multi-viewer@example.test",
      password: PASSWORD,
      role: "admin",
    });
    await grantStaffMembership(db, { email: viewer.email, tenantId: OTHER, role: "viewer" });
  });

  it("grants memberships only for known users, tenants and roles, never the home tenant", async () => {
    const db = t.server.database.prisma;
    await expect(
      grantStaffMembership(db, { email: "nobody@example.test", tenantId: OTHER, role: "admin" }),
    ).rejects.toThrow(/No staff user/);
    await expect(
      grantStaffMembership(db, { email: "multi@example.test", tenantId: "ten_none", role: "admin" }),
    ).rejects.toThrow(/No tenant/);
    await expect(
      grantStaffMembership(db, { email: "multi@example.test", tenantId: OTHER, role: "owner" }),
    ).rejects.toThrow(/Unknown role/);
    await expect(
      grantStaffMembership(db, { email: "multi@example.test", tenantId: t.tenantId, role: "viewer" }),
    ).rejects.toThrow(/home tenant/);
  });

  const references = async (session: Session) =>
    (await trpc("GET", "organisations.list", { session, input: {} })).body.result.data.data.map(
      (o: { reference: string }) => o.reference,
    );

  it("lists the home tenant and memberships, switches, sees only that tenant's data, and back", async () => {
    const session = await signIn("multi@example.test");
    const tenants = await trpc("GET", "staff.tenants", { session });
    expect(tenants.status).toBe(200);
    expect(tenants.body.result.data.data).toEqual([
      { id: t.tenantId, name: expect.any(String), role: "admin", home: true },
      { id: OTHER, name: "Other tenant", role: "admin", home: false },
    ]);
    await trpc("POST", "organisations.create", {
      session,
      input: { reference: "home-tenant-org", displayName: "Home tenant org" },
    });

    const switched = await trpc("POST", "staff.switchTenant", { session, input: { tenantId: OTHER } });
    expect(switched.status).toBe(200);
    expect(switched.body.result.data.data.tenant).toEqual({ id: OTHER, name: "Other tenant" });
    const me = await trpc("GET", "staff.me", { session });
    expect(me.body.result.data.data.tenant.id).toBe(OTHER);
    expect(await references(session)).toEqual([]);
    const created = await trpc("POST", "organisations.create", {
      session,
      input: { reference: "other-tenant-org", displayName: "Other tenant org" },
    });
    expect(created.status).toBe(200);
    expect(await references(session)).toEqual(["other-tenant-org"]);

    const back = await trpc("POST", "staff.switchTenant", { session, input: { tenantId: t.tenantId } });
    expect(back.body.result.data.data.tenant.id).toBe(t.tenantId);
    const home = await references(session);
    expect(home).toContain("home-tenant-org");
    expect(home).not.toContain("other-tenant-org");
  });

  it("refuses a tenant the user does not belong to with 404, leaving the session as it was", async () => {
    const session = await signIn("multi@example.test");
    for (const tenantId of [STRANGER, "ten_does_not_exist"]) {
      const r = await trpc("POST", "staff.switchTenant", { session, input: { tenantId } });
      expect(r.status).toBe(404);
      expect(r.body.error.data.envelope.error.code).toBe("NotFound");
    }
    const me = await trpc("GET", "staff.me", { session });
    expect(me.body.result.data.data.tenant.id).toBe(t.tenantId);
  });

  it("applies the membership's role in that tenant", async () => {
    const session = await signIn("multi-viewer@example.test");
    await trpc("POST", "staff.switchTenant", { session, input: { tenantId: OTHER } });
    const me = await trpc("GET", "staff.me", { session });
    expect(me.body.result.data.data.user.role).toBe("viewer");
    expect(await references(session)).toContain("other-tenant-org");
    const r = await trpc("POST", "organisations.create", {
      session,
      input: { reference: "viewer-membership-org", displayName: "Viewer membership org" },
    });
    expect(r.status).toBe(403);
    expect(r.body.error.data.envelope.error.code).toBe("MissingScope");
    await trpc("POST", "staff.switchTenant", { session, input: { tenantId: t.tenantId } });
    const homeMe = await trpc("GET", "staff.me", { session });
    expect(homeMe.body.result.data.data.user.role).toBe("admin");
  });

  it("requires the CSRF token to switch tenant", async () => {
    const session = await signIn("multi@example.test");
    const r = await trpc("POST", "staff.switchTenant", { session, csrf: null, input: { tenantId: OTHER } });
    expect(r.status).toBe(403);
    expect(r.body.error.data.envelope.error.code).toBe("CsrfTokenInvalid");
    const me = await trpc("GET", "staff.me", { session });
    expect(me.body.result.data.data.tenant.id).toBe(t.tenantId);
  });

  it("treats a session in a tenant the user has left as signed out", async () => {
    const db = t.server.database.prisma;
    const user = await createStaffUser(db, {
      tenantId: t.tenantId,
      email: "leaver@example.test",
      password: PASSWORD,
      role: "admin",
    });
    await db.staffMembership.create({ data: { userId: user.id, tenantId: OTHER, role: "operator" } });
    const session = await signIn("leaver@example.test");
    await trpc("POST", "staff.switchTenant", { session, input: { tenantId: OTHER } });
    await db.staffMembership.delete({ where: { userId_tenantId: { userId: user.id, tenantId: OTHER } } });
    const me = await trpc("GET", "staff.me", { session });
    expect(me.body.result.data.data).toBeNull();
    const list = await trpc("GET", "organisations.list", { session, input: {} });
    expect(list.status).toBe(401);
  });
});
