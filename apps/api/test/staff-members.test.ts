import {
  createApiKey,
  createStaffUser,
  createTenant,
  resetStaffPassword,
  SCOPES,
  STAFF_SCOPE,
} from "@cred/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleSession, consoleCall, trySignIn as trySignInAs } from "./fixtures/console-session";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

/**
 * Team management (issue #26, docs/api/staff-members.md): the StaffMembers_* operations, callable by a
 * tenant admin's console session (tRPC) and by production API keys holding `staff.manage`; the
 * last-administrator guard; sign-out everywhere and password resets ending sessions; tenant isolation
 * (another tenant's users are 404); every change in the audit trail.
 */

const BASE = "/management/staff-members";
let t: TestServer;
/** Tenant A's production key with every tenant scope and staff.manage. */
let keyA: string;

type Session = ConsoleSession;
const trpc = (method: "GET" | "POST", path: string, input: unknown, session?: Session) =>
  consoleCall(t, method, path, input, session);

const trpcCode = (r: { body: any }) => r.body.error?.data?.envelope?.error?.code;

const trySignIn = (email: string, password: string) => trySignInAs(t, email, password);

async function signIn(email: string, password: string): Promise<Session> {
  const session = await trySignIn(email, password);
  expect(session, `sign-in of ${email}`).not.toBeNull();
  return session!;
}

/** A console call that needs a live session: 200, or 401 once the session is gone. */
const sessionStatus = async (session: Session) =>
  (await trpc("GET", "staff.tenants", undefined, session)).status;

const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@team.example`;

/** Adds a member to tenant A by API: their id and one-time password. */
async function addMember(role: "admin" | "operator" | "viewer", key = keyA) {
  const email = unique(role);
  const r = await call(t, "POST", BASE, { key, body: { email, role } });
  expect(r.status).toBe(201);
  return { id: r.body.data.id as string, email, password: r.body.data.temporaryPassword as string };
}

/** Another tenant with its own single admin and a production staff.manage key. */
async function newTenant() {
  const root = t.server.database.root;
  const tenant = await createTenant(root, "Another");
  const admin = await createStaffUser(root, {
    tenantId: tenant.id,
    email: unique("other-admin"),
    password: "a-long-enough-password",
    role: "admin",
  });
  const key = (
    await createApiKey(
      root,
      { tenantId: tenant.id, environment: "production" },
      { name: "team", scopes: [STAFF_SCOPE] },
    )
  ).key;
  return { tenantId: tenant.id, admin, key };
}

beforeAll(async () => {
  t = await startTestServer();
  keyA = await t.key({ environment: "production", scopes: [...SCOPES, STAFF_SCOPE] });
});
afterAll(() => t?.close());

describe("StaffMembers_* (team management)", () => {
  it("Create makes a console user with a one-time password that signs in; List shows them with their role", async () => {
    const email = unique("New.Person");
    const r = await call(t, "POST", BASE, { key: keyA, body: { email, role: "operator" } });
    expect(r.status).toBe(201);
    expect(r.headers.get("x-ms-request-id")).toBeTruthy();
    expect(r.body.data).toMatchObject({ email: email.toLowerCase(), role: "operator", home: true });
    expect(r.body.data.id).toMatch(/^usr_/);
    expect(r.body.data.temporaryPassword).toEqual(expect.any(String));
    expect(r.body.data).not.toHaveProperty("passwordHash");
    const session = await signIn(email, r.body.data.temporaryPassword);
    const me = await trpc("GET", "staff.me", undefined, session);
    expect(me.body.result.data.data).toMatchObject({
      user: { role: "operator" },
      tenant: { id: t.tenantId },
    });

    // Paged by id; every page holds ≤ limit; the new member and the bootstrap admin are listed once.
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call(t, "GET", `${BASE}?limit=1${cursor ? `&cursor=${cursor}` : ""}`, {
        key: keyA,
      });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(1);
      for (const m of page.body.data) expect(m).not.toHaveProperty("passwordHash");
      ids.push(...page.body.data.map((m: { id: string }) => m.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(ids).toContain(r.body.data.id);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(ids.length);
    const all = await call(t, "GET", `${BASE}?limit=100`, { key: keyA });
    expect(all.body.data.find((m: { id: string }) => m.id === r.body.data.id)).toEqual({
      id: r.body.data.id,
      email: email.toLowerCase(),
      role: "operator",
      home: true,
      platformOperator: false,
      createdAt: expect.any(String),
    });
    expect(all.body.data.map((m: { email: string }) => m.email)).toContain("admin@localhost");

    const again = await call(t, "POST", BASE, { key: keyA, body: { email, role: "viewer" } });
    expect(again.status).toBe(409);
    expect(errorCode(again)).toBe("AlreadyExists");
  });

  it("Create with another tenant's user adds a membership (no password); their password is that tenant's to reset (409)", async () => {
    const other = await newTenant();
    const r = await call(t, "POST", BASE, { key: keyA, body: { email: other.admin.email, role: "viewer" } });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      id: other.admin.id,
      role: "viewer",
      home: false,
      temporaryPassword: null,
    });
    const session = await signIn(other.admin.email, "a-long-enough-password");
    const tenants = await trpc("GET", "staff.tenants", undefined, session);
    expect(tenants.body.result.data.data.map((x: { id: string }) => x.id)).toEqual([
      other.tenantId,
      t.tenantId,
    ]);

    const reset = await call(t, "POST", `${BASE}/${other.admin.id}/reset-password`, { key: keyA, body: {} });
    expect(reset.status).toBe(409);
    expect(errorCode(reset)).toBe("InvalidState");
    expect(reset.body.error.details[0].code).toBe("NotHomeTenant");
    // Removing them from A ends the membership only: they remain the other tenant's admin.
    const removed = await call(t, "DELETE", `${BASE}/${other.admin.id}`, { key: keyA });
    expect(removed.status).toBe(200);
    expect(removed.body.data).toMatchObject({ id: other.admin.id, home: false });
    await signIn(other.admin.email, "a-long-enough-password");
    const theirs = await call(t, "GET", `${BASE}?limit=100`, { key: other.key });
    expect(theirs.body.data.map((m: { id: string }) => m.id)).toEqual([other.admin.id]);
  });

  it("UpdateRole changes the role from the member's next request", async () => {
    const member = await addMember("operator");
    const session = await signIn(member.email, member.password);
    const r = await call(t, "PATCH", `${BASE}/${member.id}`, { key: keyA, body: { role: "viewer" } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: member.id, role: "viewer", home: true });
    const me = await trpc("GET", "staff.me", undefined, session);
    expect(me.body.result.data.data.user.role).toBe("viewer");
    expect(me.body.result.data.data.scopes).not.toContain("issuers.manage");
  });

  it("the last administrator can be neither demoted nor removed (409); with a second admin both work", async () => {
    const other = await newTenant();
    for (const [method, body] of [
      ["PATCH", { role: "operator" }],
      ["DELETE", undefined],
    ] as const) {
      const r = await call(t, method, `${BASE}/${other.admin.id}`, { key: other.key, body });
      expect([method, r.status]).toEqual([method, 409]);
      expect(errorCode(r)).toBe("InvalidState");
      expect(r.body.error.details[0].code).toBe("LastAdministrator");
    }
    // Setting the role it has already is no change, so allowed.
    const same = await call(t, "PATCH", `${BASE}/${other.admin.id}`, {
      key: other.key,
      body: { role: "admin" },
    });
    expect(same.status).toBe(200);
    const second = await addMember("admin", other.key);
    const demoted = await call(t, "PATCH", `${BASE}/${other.admin.id}`, {
      key: other.key,
      body: { role: "operator" },
    });
    expect(demoted.status).toBe(200);
    const last = await call(t, "DELETE", `${BASE}/${second.id}`, { key: other.key });
    expect(last.status).toBe(409);
    const removed = await call(t, "DELETE", `${BASE}/${other.admin.id}`, { key: other.key });
    expect(removed.status).toBe(200);
    expect(removed.body.data).toMatchObject({ id: other.admin.id, role: "operator" });
    expect(await trySignIn(other.admin.email, "a-long-enough-password")).toBeNull();
  });

  it("two concurrent demotions of a tenant's two admins: one succeeds, the other is refused (409)", async () => {
    const other = await newTenant();
    const second = await addMember("admin", other.key);
    const results = await Promise.all(
      [other.admin.id, second.id].map((id) =>
        call(t, "PATCH", `${BASE}/${id}`, { key: other.key, body: { role: "viewer" } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const list = await call(t, "GET", `${BASE}?limit=100`, { key: other.key });
    expect(list.body.data.filter((m: { role: string }) => m.role === "admin")).toHaveLength(1);
  });

  it("Remove deletes the user and ends their sessions (401); removing again → 404", async () => {
    const member = await addMember("operator");
    const session = await signIn(member.email, member.password);
    expect(await sessionStatus(session)).toBe(200);
    const r = await call(t, "DELETE", `${BASE}/${member.id}`, { key: keyA });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: member.id, email: member.email, role: "operator" });
    expect(await sessionStatus(session)).toBe(401);
    expect(await trySignIn(member.email, member.password)).toBeNull();
    const list = await call(t, "GET", `${BASE}?limit=100`, { key: keyA });
    expect(list.body.data.map((m: { id: string }) => m.id)).not.toContain(member.id);
    const again = await call(t, "DELETE", `${BASE}/${member.id}`, { key: keyA });
    expect(again.status).toBe(404);
    expect(errorCode(again)).toBe("NotFound");
  });

  it("Remove of a user who is a member elsewhere moves their home there, with that role", async () => {
    const other = await newTenant();
    const member = await addMember("operator");
    const joined = await call(t, "POST", BASE, {
      key: other.key,
      body: { email: member.email, role: "viewer" },
    });
    expect(joined.body.data).toMatchObject({ home: false, temporaryPassword: null });
    expect((await call(t, "DELETE", `${BASE}/${member.id}`, { key: keyA })).status).toBe(200);
    const session = await signIn(member.email, member.password);
    const me = await trpc("GET", "staff.me", undefined, session);
    expect(me.body.result.data.data).toMatchObject({
      tenant: { id: other.tenantId },
      user: { role: "viewer" },
    });
    const theirs = await call(t, "GET", `${BASE}?limit=100`, { key: other.key });
    expect(theirs.body.data.find((m: { id: string }) => m.id === member.id)).toMatchObject({ home: true });
  });

  it("ResetPassword returns a new one-time password that signs in; the old one and every session stop working", async () => {
    const member = await addMember("viewer");
    const session = await signIn(member.email, member.password);
    const r = await call(t, "POST", `${BASE}/${member.id}/reset-password`, { key: keyA, body: {} });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: member.id, email: member.email, role: "viewer" });
    expect(r.body.data.temporaryPassword).not.toBe(member.password);
    expect(await sessionStatus(session)).toBe(401);
    expect(await trySignIn(member.email, member.password)).toBeNull();
    await signIn(member.email, r.body.data.temporaryPassword);
  });

  it("SignOut ends every session of the member (an existing cookie → 401); their password still signs in", async () => {
    const member = await addMember("operator");
    const first = await signIn(member.email, member.password);
    const second = await signIn(member.email, member.password);
    const bystander = await addMember("viewer");
    const theirs = await signIn(bystander.email, bystander.password);
    const r = await call(t, "POST", `${BASE}/${member.id}/sign-out`, { key: keyA, body: {} });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: member.id, sessionsRevoked: 2 });
    expect(await sessionStatus(first)).toBe(401);
    expect(await sessionStatus(second)).toBe(401);
    const me = await trpc("GET", "staff.me", undefined, first);
    expect(me.body.result.data.data).toBeNull();
    expect(await sessionStatus(theirs)).toBe(200);
    await signIn(member.email, member.password);
  });

  it("400 for invalid input; 404 for an unknown user", async () => {
    for (const body of [
      {},
      { email: "not an e-mail", role: "viewer" },
      { email: "ok@team.example", role: "owner" },
      { email: "ok@team.example", role: "viewer", extra: 1 },
    ]) {
      const r = await call(t, "POST", BASE, { key: keyA, body });
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 400]);
      expect(errorCode(r)).toBe("ValidationFailed");
    }
    const member = await addMember("viewer");
    const bad = await call(t, "PATCH", `${BASE}/${member.id}`, { key: keyA, body: { role: "root" } });
    expect(bad.status).toBe(400);
    expect((await call(t, "GET", `${BASE}?limit=0`, { key: keyA })).status).toBe(400);
    for (const [method, path, body] of [
      ["PATCH", `${BASE}/usr_unknown`, { role: "viewer" }],
      ["DELETE", `${BASE}/usr_unknown`, undefined],
      ["POST", `${BASE}/usr_unknown/reset-password`, {}],
      ["POST", `${BASE}/usr_unknown/sign-out`, {}],
    ] as const) {
      const r = await call(t, method, path, { key: keyA, body });
      expect([path, r.status]).toEqual([path, 404]);
      expect(errorCode(r)).toBe("NotFound");
    }
  });

  it("another tenant's users are 404 on every operation and absent from its list; nothing of theirs changes", async () => {
    const other = await newTenant();
    const victim = await addMember("operator");
    const session = await signIn(victim.email, victim.password);
    for (const [method, suffix, body] of [
      ["PATCH", "", { role: "admin" }],
      ["DELETE", "", undefined],
      ["POST", "/reset-password", {}],
      ["POST", "/sign-out", {}],
    ] as const) {
      const r = await call(t, method, `${BASE}/${victim.id}${suffix}`, { key: other.key, body });
      expect([method, suffix, r.status]).toEqual([method, suffix, 404]);
      expect(errorCode(r)).toBe("NotFound");
    }
    const theirs = await call(t, "GET", `${BASE}?limit=100`, { key: other.key });
    expect(theirs.body.data.map((m: { id: string }) => m.id)).toEqual([other.admin.id]);
    expect(await sessionStatus(session)).toBe(200);
    await signIn(victim.email, victim.password);
    const mine = await call(t, "GET", `${BASE}?limit=100`, { key: keyA });
    expect(mine.body.data.find((m: { id: string }) => m.id === victim.id)).toMatchObject({
      role: "operator",
    });
  });

  it("staff.manage: refused to sandbox keys (none can hold it) and to keys without it (403)", async () => {
    const root = t.server.database.root;
    await expect(
      createApiKey(
        root,
        { tenantId: t.tenantId, environment: "sandbox" },
        { name: "x", scopes: [STAFF_SCOPE] },
      ),
    ).rejects.toMatchObject({ code: "ValidationFailed" });
    const sandboxEverything = await t.key({ scopes: [...SCOPES] });
    const productionWithout = await t.key({ environment: "production", scopes: [...SCOPES] });
    for (const key of [t.adminKey, sandboxEverything, productionWithout]) {
      for (const [method, path, body] of [
        ["GET", BASE, undefined],
        ["POST", BASE, { email: "x@team.example", role: "viewer" }],
        ["PATCH", `${BASE}/usr_x`, { role: "viewer" }],
        ["DELETE", `${BASE}/usr_x`, undefined],
        ["POST", `${BASE}/usr_x/reset-password`, {}],
        ["POST", `${BASE}/usr_x/sign-out`, {}],
      ] as const) {
        const r = await call(t, method, path, { key, body });
        expect([method, path, r.status]).toEqual([method, path, 403]);
        expect(errorCode(r)).toBe("MissingScope");
      }
    }
    const unauth = await call(t, "GET", BASE);
    expect(unauth.status).toBe(401);
  });

  it("console: an admin session manages the team over tRPC; operator and viewer sessions are refused (403)", async () => {
    const admin = await addMember("admin");
    const session = await signIn(admin.email, admin.password);
    const me = await trpc("GET", "staff.me", undefined, session);
    expect(me.body.result.data.data.scopes).toContain(STAFF_SCOPE);
    const created = await trpc(
      "POST",
      "staffMembers.create",
      { email: unique("console"), role: "viewer" },
      session,
    );
    expect(created.status).toBe(200);
    expect(created.body.result.data.data.temporaryPassword).toEqual(expect.any(String));
    const listed = await trpc("GET", "staffMembers.list", { limit: 100 }, session);
    expect(listed.body.result.data.data.map((m: { id: string }) => m.id)).toContain(
      created.body.result.data.data.id,
    );
    // A mutation without the CSRF token is refused.
    const noCsrf = await trpc(
      "POST",
      "staffMembers.signOut",
      { userId: created.body.result.data.data.id },
      {
        cookie: session.cookie,
        csrf: "wrong",
      },
    );
    expect(trpcCode(noCsrf)).toBe("CsrfTokenInvalid");

    for (const role of ["operator", "viewer"] as const) {
      const member = await addMember(role);
      const s = await signIn(member.email, member.password);
      const meToo = await trpc("GET", "staff.me", undefined, s);
      expect(meToo.body.result.data.data.scopes).not.toContain(STAFF_SCOPE);
      const list = await trpc("GET", "staffMembers.list", { limit: 10 }, s);
      expect([role, list.status, trpcCode(list)]).toEqual([role, 403, "MissingScope"]);
      const create = await trpc("POST", "staffMembers.create", { email: unique("nope"), role: "admin" }, s);
      expect([role, create.status, trpcCode(create)]).toEqual([role, 403, "MissingScope"]);
    }
  });

  it("console: an admin may make a key with staff.manage only in production", async () => {
    const admin = await addMember("admin");
    const session = await signIn(admin.email, admin.password);
    const sandbox = await trpc("POST", "apiKeys.create", { name: "team", scopes: [STAFF_SCOPE] }, session);
    expect([sandbox.status, trpcCode(sandbox)]).toEqual([400, "ValidationFailed"]);
    await trpc("POST", "staff.switchEnvironment", { environment: "production" }, session);
    const production = await trpc("POST", "apiKeys.create", { name: "team", scopes: [STAFF_SCOPE] }, session);
    expect(production.status).toBe(200);
    const key = production.body.result.data.data.key as string;
    expect((await call(t, "GET", `${BASE}?limit=1`, { key })).status).toBe(200);
  });

  it("a platform operator can be changed only by a caller holding platform.manage (403 otherwise)", async () => {
    const list = await call(t, "GET", `${BASE}?limit=100`, { key: keyA });
    const operator0 = list.body.data.find((m: { email: string }) => m.email === "admin@localhost");
    // The list says who is one (the Team page marks them); a member added here is not.
    expect(operator0.platformOperator).toBe(true);
    const added = await addMember("viewer");
    const again = await call(t, "GET", `${BASE}?limit=100`, { key: keyA });
    expect(again.body.data.find((m: { id: string }) => m.id === added.id).platformOperator).toBe(false);
    const operatorId = operator0.id as string;
    for (const [method, suffix, body] of [
      ["PATCH", "", { role: "viewer" }],
      ["DELETE", "", undefined],
      ["POST", "/reset-password", {}],
      ["POST", "/sign-out", {}],
    ] as const) {
      const r = await call(t, method, `${BASE}/${operatorId}${suffix}`, { key: keyA, body });
      expect([method, suffix, r.status]).toEqual([method, suffix, 403]);
      expect(errorCode(r)).toBe("MissingScope");
    }
    // The platform operator's own session (admin + platform.manage) may.
    const password = (await resetStaffPassword(t.server.database.root, "admin@localhost")).password;
    const operator = await signIn("admin@localhost", password);
    const r = await trpc("POST", "staffMembers.signOut", { userId: operatorId }, operator);
    expect(r.status).toBe(200);
    expect(r.body.result.data.data).toEqual({ id: operatorId, sessionsRevoked: 1 });
    expect(await sessionStatus(operator)).toBe(401);
  });

  it("each change is an audit event naming the member, without the one-time password", async () => {
    const member = await addMember("viewer");
    await call(t, "PATCH", `${BASE}/${member.id}`, { key: keyA, body: { role: "operator" } });
    const reset = await call(t, "POST", `${BASE}/${member.id}/reset-password`, { key: keyA, body: {} });
    await call(t, "POST", `${BASE}/${member.id}/sign-out`, { key: keyA, body: {} });
    await call(t, "DELETE", `${BASE}/${member.id}`, { key: keyA });
    const events = await call(t, "GET", `/management/audit-events?targetId=${member.id}&limit=100`, {
      key: keyA,
    });
    expect(events.status).toBe(200);
    const byOperation = Object.fromEntries(events.body.data.map((e: any) => [e.operation, e])) as Record<
      string,
      any
    >;
    expect(Object.keys(byOperation).sort()).toEqual([
      "StaffMembers_Create",
      "StaffMembers_Remove",
      "StaffMembers_ResetPassword",
      "StaffMembers_SignOut",
      "StaffMembers_UpdateRole",
    ]);
    for (const e of events.body.data) {
      expect(e).toMatchObject({ outcome: "succeeded", target: { type: "staffMember", id: member.id } });
      expect(e.actor).toMatchObject({ type: "apiKey" });
    }
    expect(byOperation.StaffMembers_Create.summary.values).toEqual({ email: member.email, role: "viewer" });
    expect(byOperation.StaffMembers_UpdateRole.summary.values).toMatchObject({ role: "operator" });
    const text = JSON.stringify(events.body);
    expect(text).not.toContain(member.password);
    expect(text).not.toContain(reset.body.data.temporaryPassword);
    // A refused change is recorded too (here: demoting the platform operator with a tenant key).
    const list = await call(t, "GET", `${BASE}?limit=100`, { key: keyA });
    const operator0 = list.body.data.find((m: { email: string }) => m.email === "admin@localhost");
    // The list says who is one (the Team page marks them); a member added here is not.
    expect(operator0.platformOperator).toBe(true);
    const added = await addMember("viewer");
    const again = await call(t, "GET", `${BASE}?limit=100`, { key: keyA });
    expect(again.body.data.find((m: { id: string }) => m.id === added.id).platformOperator).toBe(false);
    const operatorId = operator0.id as string;
    expect((await call(t, "DELETE", `${BASE}/${operatorId}`, { key: keyA })).status).toBe(403);
    const refused = await call(t, "GET", `/management/audit-events?targetId=${operatorId}&outcome=refused`, {
      key: keyA,
    });
    expect(refused.body.data.map((e: any) => [e.operation, e.status])).toContainEqual([
      "StaffMembers_Remove",
      403,
    ]);
  });
});
