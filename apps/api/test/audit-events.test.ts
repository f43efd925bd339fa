import { maintainAuditTrail, verifyAuditChain } from "@cred/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activeIssuer, createTransaction } from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

const LIST = "/management/audit-events";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const createOrganisation = (key: string, reference: string, headers: Record<string, string> = {}) =>
  call(t, "POST", "/management/organisations", {
    key,
    body: { reference, displayName: `Org ${reference}` },
    headers,
  });

/** The caller's events once every one of them is sealed into the chain. */
async function sealedEvents(key: string, query = "") {
  for (let i = 0; i < 250; i++) {
    const res = await call(t, "GET", `${LIST}?limit=100${query}`, { key });
    expect(res.status).toBe(200);
    if (res.body.data.every((e: { sequence: number | null }) => e.sequence !== null)) return res.body.data;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("events were not sealed");
}

describe("AuditEvents_List", () => {
  it("records a state-changing call with actor, operation, target, outcome, ids and address, sealed and intact", async () => {
    const created = await createOrganisation(t.adminKey, "audited-org", {
      "x-ms-client-request-id": "client-42",
    });
    expect(created.status).toBe(201);
    const events = await sealedEvents(t.adminKey, "&operation=Organisations_Create");
    const event = events.find((e: { target: { id: string } }) => e.target.id === "audited-org");
    expect(event).toMatchObject({
      operation: "Organisations_Create",
      actor: { type: "apiKey" },
      target: { type: "organisation", id: "audited-org" },
      outcome: "succeeded",
      status: 201,
      requestId: created.headers.get("x-ms-request-id"),
      clientRequestId: "client-42",
      summary: { fields: ["displayName", "reference"], values: { displayName: "Org audited-org" } },
      integrity: { state: "intact" },
    });
    expect(event.actor.id).toMatch(/^key_|^ak/);
    expect(event.sourceAddress).toMatch(/127\.0\.0\.1/);
    expect(event.integrity.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("records refusals for authorization and failed calls; reads are not recorded", async () => {
    const readOnly = await t.key({ scopes: ["organisations.read", "audit.read"] });
    const refused = await createOrganisation(readOnly, "refused-org");
    expect(refused.status).toBe(403);
    const invalid = await call(t, "POST", "/management/organisations", {
      key: t.adminKey,
      body: { reference: "" },
    });
    expect(invalid.status).toBe(400);
    expect((await call(t, "GET", "/management/organisations", { key: t.adminKey })).status).toBe(200);

    const refusedEvents = await sealedEvents(readOnly, "&outcome=refused");
    expect(refusedEvents).toHaveLength(1);
    expect(refusedEvents[0]).toMatchObject({
      operation: "Organisations_Create",
      status: 403,
      outcome: "refused",
    });
    const failed = await sealedEvents(t.adminKey, "&outcome=failed");
    expect(
      failed.some((e: { requestId: string }) => e.requestId === invalid.headers.get("x-ms-request-id")),
    ).toBe(true);
    const all = await sealedEvents(t.adminKey);
    expect(all.some((e: { operation: string }) => e.operation === "Organisations_List")).toBe(false);
  });

  it("keeps claim values, secrets and keys out of the summary", async () => {
    const hook = await call(t, "POST", "/management/webhooks", {
      key: t.adminKey,
      body: { url: "http://127.0.0.1:9/audit", events: ["*"] },
    });
    expect(hook.status).toBe(201);
    const secret: string = hook.body.data.secret;
    const rotated = await call(t, "POST", `/management/webhooks/${hook.body.data.id}/rotate-secret`, {
      key: t.adminKey,
      body: {},
    });
    expect(rotated.status).toBe(200);
    const text = JSON.stringify(await sealedEvents(t.adminKey));
    expect(secret).toBeTruthy();
    expect(text).not.toContain(secret);
    expect(text).not.toContain(rotated.body.data.secret ?? "no-secret-in-answer");
    const created = JSON.parse(text).find(
      (e: { operation: string; target: { id: string } }) =>
        e.operation === "Webhooks_Create" && e.target.id === hook.body.data.id,
    );
    expect(created.summary.values).toEqual({ url: "http://127.0.0.1:9/audit", events: ["*"] });

    const active = await activeIssuer(t, t.adminKey);
    const transaction = await createTransaction(t, t.adminKey, active);
    const issued = (await sealedEvents(t.adminKey, "&operation=IssuanceTransactions_Create"))[0];
    expect(issued.target).toEqual({ type: "issuanceTransaction", id: transaction.id });
    expect(issued.summary.fields).toContain("claims");
    const issuedText = JSON.stringify(issued);
    for (const value of ["Erika", "Mustermann", "1984-01-26", "4711"])
      expect(issuedText).not.toContain(value);
  });

  it("filters by actor, operation, target, outcome and time, and pages newest first", async () => {
    const other = await t.key({ scopes: ["organisations.manage", "audit.read"] });
    for (const ref of ["page-a", "page-b", "page-c"])
      expect((await createOrganisation(other, ref)).status).toBe(201);
    const mine = await sealedEvents(other);
    const actorId = mine[0].actor.id;
    const first = await call(t, "GET", `${LIST}?actorId=${actorId}&limit=2`, { key: other });
    expect(first.status).toBe(200);
    expect(
      first.body.data.map((e: { summary: { values: { reference?: string } } }) => e.summary),
    ).toHaveLength(2);
    const ids = first.body.data.map((e: { id: string }) => e.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    const second = await call(
      t,
      "GET",
      `${LIST}?actorId=${actorId}&limit=2&cursor=${first.body.nextCursor}`,
      {
        key: other,
      },
    );
    expect(second.body.data).toHaveLength(1);
    expect(second.body.nextCursor).toBeNull();
    expect(second.body.data[0].id < ids[1]).toBe(true);

    const target = mine[1].target.id;
    const byTarget = await call(t, "GET", `${LIST}?targetId=${target}`, { key: other });
    expect(byTarget.body.data.map((e: { target: { id: string } }) => e.target.id)).toEqual([target]);
    const future = new Date(Date.now() + 60_000).toISOString();
    const none = await call(t, "GET", `${LIST}?actorId=${actorId}&from=${encodeURIComponent(future)}`, {
      key: other,
    });
    expect(none.body.data).toEqual([]);
    const before = await call(t, "GET", `${LIST}?actorId=${actorId}&to=${encodeURIComponent(future)}`, {
      key: other,
    });
    expect(before.body.data).toHaveLength(3);
    const byOperation = await call(t, "GET", `${LIST}?operation=Webhooks_Create`, { key: other });
    expect(byOperation.body.data.every((e: { operation: string }) => e.operation === "Webhooks_Create")).toBe(
      true,
    );
  });

  it("answers 400 for a bad filter or cursor, 401 without a key, 403 without audit.read", async () => {
    expect(errorCode(await call(t, "GET", `${LIST}?from=yesterday`, { key: t.adminKey }))).toBe(
      "ValidationFailed",
    );
    expect(errorCode(await call(t, "GET", `${LIST}?cursor=nope`, { key: t.adminKey }))).toBe(
      "ValidationFailed",
    );
    expect((await call(t, "GET", LIST)).status).toBe(401);
    const noAudit = await t.key({ scopes: ["organisations.read"] });
    const refused = await call(t, "GET", LIST, { key: noAudit });
    expect(refused.status).toBe(403);
    expect(errorCode(refused)).toBe("MissingScope");
  });

  it("shows a tenant and an environment only their own events", async () => {
    const b = await t.otherTenant();
    expect((await createOrganisation(b.key, "tenant-b-org")).status).toBe(201);
    const production = await t.key({
      environment: "production",
      scopes: ["organisations.manage", "audit.read"],
    });
    expect((await createOrganisation(production, "production-org")).status).toBe(201);

    const aEvents = await sealedEvents(t.adminKey);
    const bEvents = await sealedEvents(b.key);
    const prodEvents = await sealedEvents(production);
    const refs = (events: { summary: { values: { reference?: string } } }[]) =>
      events.map((e) => e.summary.values.reference).filter(Boolean);
    expect(refs(bEvents)).toEqual(["tenant-b-org"]);
    expect(refs(prodEvents)).toEqual(["production-org"]);
    expect(refs(aEvents)).not.toContain("tenant-b-org");
    expect(refs(aEvents)).not.toContain("production-org");
    expect(bEvents.every((e: { integrity: { state: string } }) => e.integrity.state === "intact")).toBe(true);
  });
});

describe("the audit hash chain", () => {
  it("reports an edited event as broken, in the list and in the chain verification", async () => {
    const tenant = await t.otherTenant();
    for (const ref of ["chain-a", "chain-b", "chain-c"])
      expect((await createOrganisation(tenant.key, ref)).status).toBe(201);
    const events = await sealedEvents(tenant.key);
    expect((await verifyAuditChain(t.server.database.root, tenant.tenantId)).intact).toBe(true);

    const middle = events[1];
    await t.server.database.root.sql.query(
      `UPDATE "AuditEvent" SET "summary" = '{"fields":[],"values":{}}'::jsonb WHERE "id" = $1`,
      [middle.id],
    );
    const after = (await call(t, "GET", `${LIST}?limit=100`, { key: tenant.key })).body.data;
    expect(after.find((e: { id: string }) => e.id === middle.id).integrity.state).toBe("broken");
    expect(after.find((e: { id: string }) => e.id === events[0].id).integrity.state).toBe("intact");
    const report = await verifyAuditChain(t.server.database.root, tenant.tenantId);
    expect(report).toMatchObject({ intact: false, brokenAt: { sequence: middle.sequence } });
  });

  it("reports a removed event and a removed newest event as broken", async () => {
    const tenant = await t.otherTenant();
    for (const ref of ["gap-a", "gap-b", "gap-c", "gap-d"])
      expect((await createOrganisation(tenant.key, ref)).status).toBe(201);
    const events = await sealedEvents(tenant.key);
    await t.server.database.root.sql.query(`DELETE FROM "AuditEvent" WHERE "id" = $1`, [events[2].id]);
    const after = (await call(t, "GET", `${LIST}?limit=100`, { key: tenant.key })).body.data;
    expect(after.find((e: { id: string }) => e.id === events[1].id).integrity.state).toBe("broken");
    expect((await verifyAuditChain(t.server.database.root, tenant.tenantId)).brokenAt?.sequence).toBe(
      events[2].sequence,
    );

    const other = await t.otherTenant();
    for (const ref of ["head-a", "head-b"])
      expect((await createOrganisation(other.key, ref)).status).toBe(201);
    const newest = (await sealedEvents(other.key))[0];
    await t.server.database.root.sql.query(`DELETE FROM "AuditEvent" WHERE "id" = $1`, [newest.id]);
    expect((await verifyAuditChain(t.server.database.root, other.tenantId)).intact).toBe(false);
  });

  it("purges events past retention from the oldest end and the rest still verifies", async () => {
    const tenant = await t.otherTenant();
    expect((await createOrganisation(tenant.key, "old-one")).status).toBe(201);
    await sealedEvents(tenant.key);
    await t.server.database.root.sql.query(
      `UPDATE "AuditEvent" SET "occurredAt" = now() - interval '500 days' WHERE "tenantId" = $1`,
      [tenant.tenantId],
    );
    // The edit broke the event's hash, but retention removes it with everything before it.
    expect((await createOrganisation(tenant.key, "new-one")).status).toBe(201);
    await sealedEvents(tenant.key);
    const report = await maintainAuditTrail({
      database: t.server.database,
      config: { auditRetentionDays: 400 },
    });
    expect(report.purged).toBeGreaterThanOrEqual(1);
    const kept = await sealedEvents(tenant.key);
    expect(
      kept.map((e: { summary: { values: { reference?: string } } }) => e.summary.values.reference),
    ).toEqual(["new-one"]);
    expect(kept[0].integrity.state).toBe("intact");
    expect(await verifyAuditChain(t.server.database.root, tenant.tenantId)).toMatchObject({
      intact: true,
      events: 1,
    });
  });
});
