import { createStaffUser, grantStaffMembership } from "@cred/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness";

/** HTTP tests of the console's tRPC endpoint (/trpc): staff sign-in, session cookie, CSRF and roles. */
let t: TestServer;
const PASSWORD = "correct horse battery staple";

// Short waits so the tests can watch them grow; the free failures are the defaults' shape, smaller.
const THROTTLE = {
  pairFreeFailures: 3,
  clientFreeFailures: 6,
  accountFreeFailures: 8,
  firstWaitSeconds: 2,
  maxWaitSeconds: 8,
};

beforeAll(async () => {
  t = await startTestServer({ signInThrottle: THROTTLE });
  const db = t.server.database.root;
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
  options: { input?: unknown; session?: Session; csrf?: string | null; client?: string } = {},
) {
  const url = new URL(`/trpc/${path}`, t.baseUrl);
  const headers: Record<string, string> = {};
  // The console's proxy (on loopback, trusted by default) names the browser's address this way.
  if (options.client) headers["x-forwarded-for"] = options.client;
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("sign-in throttling (per account and client, growing waits)", () => {
  async function staffUser(email: string) {
    await createStaffUser(t.server.database.root, {
      tenantId: t.tenantId,
      email,
      password: PASSWORD,
      role: "viewer",
    });
  }
  const attempt = (email: string, client: string, password = "wrong password") =>
    trpc("POST", "staff.signIn", { input: { email, password }, client });
  const envelope = (r: Awaited<ReturnType<typeof trpc>>) => r.body.error.data.envelope.error;
  /** 429 during a wait of `seconds` (Retry-After and the message count down from it). */
  function expectRefusedFor(r: Awaited<ReturnType<typeof trpc>>, seconds: number) {
    expect(r.status).toBe(429);
    const retryAfter = Number(r.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(seconds);
    expect(envelope(r)).toMatchObject({
      code: "Throttled",
      message: `Too many failed sign-ins from your address. Try again in ${retryAfter === 1 ? "1 second" : `${retryAfter} seconds`}.`,
    });
  }

  it("makes a guessing client wait longer each time while the owner signs in from another address", async () => {
    const email = "guessed@example.test";
    await staffUser(email);
    const attacker = "198.51.100.7";
    for (let i = 0; i < 2; i++) {
      const r = await attempt(email, attacker);
      expect(r.status).toBe(401);
      expect(r.headers.get("retry-after")).toBeNull();
    }
    // The third failure (pairFreeFailures) starts the waits, and says so.
    const third = await attempt(email, attacker);
    expect(third.status).toBe(401);
    expect(third.headers.get("retry-after")).toBe("2");
    expect(envelope(third)).toMatchObject({
      code: "Unauthenticated",
      message:
        "The email address or password is not correct. After several failures, the next attempt from your address must wait 2 seconds.",
    });
    const refused = await attempt(email, attacker);
    expect(refused.status).toBe(429);
    expectRefusedFor(refused, 2);
    // The wait holds for the attacker's address whatever the password; the owner elsewhere signs in.
    expect((await attempt(email, attacker, PASSWORD)).status).toBe(429);
    expect((await attempt(email, "203.0.113.20", PASSWORD)).status).toBe(200);

    await sleep(2100);
    const fourth = await attempt(email, attacker);
    expect(fourth.status).toBe(401);
    expect(fourth.headers.get("retry-after")).toBe("4");
    const again = await attempt(email, attacker);
    expect(again.status).toBe(429);
    expectRefusedFor(again, 4);

    // After the wait, the right password from that address signs in and clears its failures.
    await sleep(4100);
    expect((await attempt(email, attacker, PASSWORD)).status).toBe(200);
    // (One more failure would be the address's sixth over all accounts: clientFreeFailures.)
    const afresh = await attempt(email, attacker);
    expect(afresh.status).toBe(401);
    expect(afresh.headers.get("retry-after")).toBeNull();
  });

  it("counts parallel guesses in full: past the free failures only one gets through per wait", async () => {
    // Waits of a minute, so that none ends while the burst is still arriving on a busy machine.
    const slow = await startTestServer({
      signInThrottle: { ...THROTTLE, firstWaitSeconds: 60, maxWaitSeconds: 60 },
    });
    try {
      const email = "parallel@example.test";
      await createStaffUser(slow.server.database.root, {
        tenantId: slow.tenantId,
        email,
        password: PASSWORD,
        role: "viewer",
      });
      const attemptOn = (client: string, password: string) =>
        fetch(new URL("/trpc/staff.signIn", slow.baseUrl), {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": client },
          body: JSON.stringify({ email, password }),
        });
      const results = await Promise.all(
        Array.from({ length: 10 }, () => attemptOn("198.51.100.8", "wrong password")),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([...Array(3).fill(401), ...Array(7).fill(429)]);
      expect((await attemptOn("198.51.100.9", PASSWORD)).status).toBe(200);
    } finally {
      await slow.close();
    }
  });

  it("makes a client guessing across accounts wait, on every account, while other clients sign in", async () => {
    const sprayer = "198.51.100.10";
    for (let i = 1; i <= 5; i++) {
      const r = await attempt(`sprayed-${i}@example.test`, sprayer);
      expect(r.status).toBe(401);
      expect(r.headers.get("retry-after")).toBeNull();
    }
    const sixth = await attempt("sprayed-6@example.test", sprayer);
    expect(sixth.status).toBe(401);
    expect(sixth.headers.get("retry-after")).toBe("2");
    expect((await attempt("sprayed-7@example.test", sprayer)).status).toBe(429);
    expect((await attempt("operator@example.test", sprayer, PASSWORD)).status).toBe(429);
    expect((await attempt("operator@example.test", "203.0.113.21", PASSWORD)).status).toBe(200);
  });

  it("leaves each of many guessing addresses one free failure, and still lets a clean client in", async () => {
    const email = "besieged@example.test";
    await staffUser(email);
    for (let i = 1; i <= 8; i++) expect((await attempt(email, `198.51.100.${100 + i}`)).status).toBe(401);
    // accountFreeFailures reached: a new address waits after its first failure.
    const next = await attempt(email, "198.51.100.120");
    expect(next.status).toBe(401);
    expect(next.headers.get("retry-after")).toBe("2");
    expect((await attempt(email, "198.51.100.120")).status).toBe(429);
    // The owner's address has not failed: the first attempt is let through.
    expect((await attempt(email, "203.0.113.22", PASSWORD)).status).toBe(200);
  });

  it("throttles the longest e-mail addresses too (the store's keys are fixed-length digests)", async () => {
    const email = `${"x".repeat(300)}@example.test`;
    for (let i = 0; i < 3; i++) expect((await attempt(email, "198.51.100.30")).status).toBe(401);
    expect((await attempt(email, "198.51.100.30")).status).toBe(429);
  });

  it("throttles IPv6 clients by /64 and trusts X-Forwarded-For only from a trusted proxy", async () => {
    const email = "ipv6@example.test";
    await staffUser(email);
    for (let i = 1; i <= 3; i++) expect((await attempt(email, `2001:db8:7:7::${i}`)).status).toBe(401);
    expect((await attempt(email, "2001:db8:7:7:ffff::1")).status).toBe(429);
    expect((await attempt(email, "2001:db8:7:8::1", PASSWORD)).status).toBe(200);

    // Without a trusted proxy, the header is the caller's word and is ignored: every request is one client.
    const direct = await startTestServer({ signInThrottle: THROTTLE, trustProxy: [] });
    try {
      await createStaffUser(direct.server.database.root, {
        tenantId: direct.tenantId,
        email,
        password: PASSWORD,
        role: "viewer",
      });
      const spoofed = (n: number) =>
        fetch(new URL("/trpc/staff.signIn", direct.baseUrl), {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": `198.51.100.${n}` },
          body: JSON.stringify({ email, password: "wrong password" }),
        });
      for (let i = 1; i <= 3; i++) expect((await spoofed(i)).status).toBe(401);
      expect((await spoofed(4)).status).toBe(429);
    } finally {
      await direct.close();
    }
  });
});

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

  it("tells the owner of a session nothing new: no Retry-After before the free failures are spent", async () => {
    const r = await trpc("POST", "staff.signIn", {
      input: { email: "viewer@example.test", password: "wrong password" },
      client: "192.0.2.99",
    });
    expect(r.status).toBe(401);
    expect(r.headers.get("retry-after")).toBeNull();
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
    const db = t.server.database.root;
    await db.prisma.tenant.create({ data: { id: OTHER, name: "Other tenant" } });
    await db.prisma.tenant.create({ data: { id: STRANGER, name: "Not a member" } });
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
    const db = t.server.database.root;
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
    const db = t.server.database.root;
    const user = await createStaffUser(db, {
      tenantId: t.tenantId,
      email: "leaver@example.test",
      password: PASSWORD,
      role: "admin",
    });
    await db.prisma.staffMembership.create({ data: { userId: user.id, tenantId: OTHER, role: "operator" } });
    const session = await signIn("leaver@example.test");
    await trpc("POST", "staff.switchTenant", { session, input: { tenantId: OTHER } });
    await db.prisma.staffMembership.delete({
      where: { userId_tenantId: { userId: user.id, tenantId: OTHER } },
    });
    const me = await trpc("GET", "staff.me", { session });
    expect(me.body.result.data.data).toBeNull();
    const list = await trpc("GET", "organisations.list", { session, input: {} });
    expect(list.status).toBe(401);
  });
});
