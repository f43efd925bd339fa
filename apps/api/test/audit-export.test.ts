import { maintainAuditTrail } from "@cred/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_VERSION, call, errorCode, startTestServer, type TestServer } from "./harness";

const LIST = "/management/audit-events";
const EXPORT = "/management/audit-events/export";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

interface AuditEvent {
  id: string;
  sequence: number | null;
  actor: { id: string | null };
  operation: string;
  outcome: string;
  target: { id: string | null };
  summary: { values: { reference?: string } };
  integrity: { state: string; hash: string | null; previousHash: string | null };
}

const createOrganisation = (key: string, reference: string) =>
  call(t, "POST", "/management/organisations", {
    key,
    body: { reference, displayName: `Org ${reference}` },
  });

/** The export as sent: status, headers and the raw body (NDJSON is not one JSON document). */
async function exportOf(key: string | null, query = "") {
  const url = new URL(`${EXPORT}?api-version=${API_VERSION}${query}`, t.baseUrl);
  const res = await fetch(url, { headers: key ? { authorization: `ApiKey ${key}` } : {} });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text };
}

/** Each line of an NDJSON body parsed; the body ends with a newline after the last event. */
function lines(text: string): AuditEvent[] {
  if (text === "") return [];
  expect(text.endsWith("\n")).toBe(true);
  return text
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line) as AuditEvent);
}

/** The caller's events, newest first, once all of them are sealed into the chain (via the List). */
async function sealedList(key: string, query = ""): Promise<AuditEvent[]> {
  for (let i = 0; i < 250; i++) {
    const res = await call(t, "GET", `${LIST}?limit=100${query}`, { key });
    expect(res.status).toBe(200);
    if (res.body.data.every((e: AuditEvent) => e.sequence !== null)) return res.body.data;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("events were not sealed");
}

describe("AuditEvents_Export", () => {
  it("answers application/x-ndjson, one List item per line, oldest first, with the request id", async () => {
    const tenant = await t.otherTenant();
    for (const ref of ["export-a", "export-b", "export-c"])
      expect((await createOrganisation(tenant.key, ref)).status).toBe(201);
    const listed = await sealedList(tenant.key);

    const res = await exportOf(tenant.key);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    expect(res.headers.get("x-ms-request-id")).toBeTruthy();
    const exported = lines(res.text);
    // The same events, in the same shape (chain fields included), in the other order.
    expect(exported).toEqual([...listed].reverse());
    expect(exported.map((e) => e.summary.values.reference)).toEqual(["export-a", "export-b", "export-c"]);
    expect(exported.every((e) => e.integrity.state === "intact")).toBe(true);
    // Oldest first is chain order: each event links to the line before it.
    for (let i = 1; i < exported.length; i++) {
      expect(exported[i]!.sequence).toBe((exported[i - 1]!.sequence as number) + 1);
      expect(exported[i]!.integrity.previousHash).toBe(exported[i - 1]!.integrity.hash);
    }
  });

  it("applies the List's filters: actor, operation, target, outcome and time", async () => {
    const tenant = await t.otherTenant();
    const other = await t.key({ tenantId: tenant.tenantId, scopes: ["organisations.manage", "audit.read"] });
    for (const ref of ["filter-a", "filter-b"])
      expect((await createOrganisation(other, ref)).status).toBe(201);
    expect((await createOrganisation(tenant.key, "filter-c")).status).toBe(201);
    expect(
      (await call(t, "POST", "/management/organisations", { key: other, body: { reference: "" } })).status,
    ).toBe(400);
    const readOnly = await t.key({ tenantId: tenant.tenantId, scopes: ["audit.read"] });
    expect((await createOrganisation(readOnly, "filter-refused")).status).toBe(403);
    const all = await sealedList(tenant.key);
    const byOther = all.filter(
      (e) => e.actor.id === all.find((x) => x.summary.values.reference === "filter-a")!.actor.id,
    );

    const exported = async (query: string) => {
      const res = await exportOf(tenant.key, query);
      expect(res.status).toBe(200);
      return lines(res.text);
    };
    const actorId = byOther[0]!.actor.id as string;
    expect(await exported(`&actorId=${actorId}`)).toEqual([...byOther].reverse());
    expect((await exported("&outcome=failed")).map((e) => e.actor.id)).toEqual([actorId]);
    expect((await exported("&outcome=refused")).map((e) => e.operation)).toEqual(["Organisations_Create"]);
    expect((await exported(`&targetId=filter-b`)).map((e) => e.target.id)).toEqual(["filter-b"]);
    expect((await exported("&operation=Webhooks_Create")).length).toBe(0);
    expect((await exported("&operation=Organisations_Create")).length).toBe(all.length);
    const future = encodeURIComponent(new Date(Date.now() + 60_000).toISOString());
    expect(await exported(`&from=${future}`)).toEqual([]);
    expect((await exported(`&to=${future}`)).length).toBe(all.length);
    expect(await exported(`&to=${encodeURIComponent("2020-01-01T00:00:00Z")}`)).toEqual([]);
  });

  it("streams a few thousand events completely, in order, each once, and the chain holds", async () => {
    const tenant = await t.otherTenant();
    const count = 3_200;
    // Inserted as the trail inserts them (unsealed), then sealed by the worker's sweep.
    await t.server.database.root.sql.query(
      `INSERT INTO "AuditEvent" ("id","tenantId","environment","occurredAt","actorType","actorId","actorName",
         "operation","targetType","targetId","outcome","status","requestId","summary")
       SELECT 'aud_bulk' || lpad(i::text, 6, '0'), $1, 'sandbox', now(), 'apiKey', 'key_bulk', 'bulk',
         'Organisations_Create', 'organisation', 'bulk-' || i, 'succeeded', 201, 'req_bulk' || i,
         '{"fields":["reference"],"values":{"reference":"bulk"}}'::jsonb
       FROM generate_series(1, $2::int) AS i`,
      [tenant.tenantId, count],
    );
    await maintainAuditTrail({ database: t.server.database, config: { auditRetentionDays: 400 } });

    const res = await exportOf(tenant.key);
    expect(res.status).toBe(200);
    // Streamed (chunked), not one body of known length.
    expect(res.headers.get("content-length")).toBeNull();
    const exported = lines(res.text);
    expect(exported).toHaveLength(count);
    expect(new Set(exported.map((e) => e.id)).size).toBe(count);
    expect(exported[0]!.id).toBe("aud_bulk000001");
    expect(exported.at(-1)!.id).toBe(`aud_bulk${String(count).padStart(6, "0")}`);
    for (let i = 1; i < exported.length; i++) {
      expect(exported[i]!.id > exported[i - 1]!.id).toBe(true);
      expect(exported[i]!.integrity.previousHash).toBe(exported[i - 1]!.integrity.hash);
    }
    expect(exported.every((e) => e.integrity.state === "intact")).toBe(true);
    // A filter that keeps one event in the middle of a batch.
    const one = lines((await exportOf(tenant.key, "&targetId=bulk-777")).text);
    expect(one.map((e) => e.id)).toEqual(["aud_bulk000777"]);
  }, 120_000);

  it("answers errors in the JSON envelope: 400 bad filter, 401 without a key, 403 without audit.read", async () => {
    for (const query of ["&from=yesterday", "&outcome=maybe", `&actorId=${"x".repeat(65)}`]) {
      const bad = await call(t, "GET", `${EXPORT}?api-version=${API_VERSION}${query}`, { key: t.adminKey });
      expect(bad.status).toBe(400);
      expect(bad.headers.get("content-type")).toMatch(/^application\/json/);
      expect(errorCode(bad)).toBe("ValidationFailed");
    }
    const anonymous = await call(t, "GET", EXPORT);
    expect(anonymous.status).toBe(401);
    expect(errorCode(anonymous)).toBe("Unauthenticated");
    const noAudit = await t.key({ scopes: ["organisations.read"] });
    const refused = await call(t, "GET", EXPORT, { key: noAudit });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("content-type")).toMatch(/^application\/json/);
    expect(errorCode(refused)).toBe("MissingScope");
    const noVersion = await call(t, "GET", EXPORT, { key: t.adminKey, apiVersion: false });
    expect(noVersion.status).toBe(400);
    expect(errorCode(noVersion)).toBe("MissingApiVersion");
  });

  it("exports only the caller's tenant and environment", async () => {
    const a = await t.otherTenant();
    const b = await t.otherTenant();
    expect((await createOrganisation(a.key, "tenant-a-org")).status).toBe(201);
    expect((await createOrganisation(b.key, "tenant-b-org")).status).toBe(201);
    const production = await t.key({
      tenantId: a.tenantId,
      environment: "production",
      scopes: ["organisations.manage", "audit.read"],
    });
    expect((await createOrganisation(production, "production-org")).status).toBe(201);
    await sealedList(a.key);
    await sealedList(b.key);
    await sealedList(production);

    const refs = async (key: string) =>
      lines((await exportOf(key)).text).map((e) => e.summary.values.reference);
    expect(await refs(a.key)).toEqual(["tenant-a-org"]);
    expect(await refs(b.key)).toEqual(["tenant-b-org"]);
    expect(await refs(production)).toEqual(["production-org"]);
    // A partition without events answers an empty export.
    const empty = await t.otherTenant();
    const none = await exportOf(empty.key);
    expect(none.status).toBe(200);
    expect(none.text).toBe("");
  });

  it("is listed in openapi.json as application/x-ndjson of AuditEvent, with the List's filters", async () => {
    const doc = (await call(t, "GET", "/openapi.json")).body;
    const op = doc.paths[EXPORT].get;
    expect(op.operationId).toBe("AuditEvents_Export");
    expect(op["x-required-scopes"]).toEqual(["audit.read"]);
    expect(op.responses["200"].content).toEqual({
      "application/x-ndjson": { schema: { $ref: "#/components/schemas/AuditEvent" } },
    });
    expect(op.responses["400"].content["application/json"]).toBeDefined();
    const names = (params: { name?: string }[]) => params.map((p) => p.name).filter(Boolean);
    expect(names(op.parameters)).toEqual(
      names(doc.paths[LIST].get.parameters).filter((n) => n !== "limit" && n !== "cursor"),
    );
  });
});
