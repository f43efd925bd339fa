import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

const BASE = "/management/organisations";

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

async function organisation(reference: string, key = t.adminKey) {
  const r = await call(t, "POST", BASE, {
    key,
    body: {
      reference,
      displayName: "Acme Bank",
      legalName: "Acme Bank N.V.",
      country: "NL",
      identifiers: [{ scheme: "LEI", value: "5493001KJTIIGC8Y1R12" }],
    },
  });
  expect(r.status).toBe(201);
  return r.body.data;
}

const patch = (reference: string, body: unknown, key = t.adminKey) =>
  call(t, "PATCH", `${BASE}/${reference}`, { key, body });

describe("Organisations_Update", () => {
  it("200: changes the members given, leaves the others, and Get shows the change", async () => {
    const before = await organisation("upd-happy");
    const r = await patch("upd-happy", { displayName: "Acme Bank Europe", country: "BE" });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      reference: "upd-happy",
      displayName: "Acme Bank Europe",
      legalName: "Acme Bank N.V.",
      country: "BE",
      identifiers: [{ scheme: "LEI", value: "5493001KJTIIGC8Y1R12" }],
      createdAt: before.createdAt,
    });
    expect(Date.parse(r.body.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));
    const read = await call(t, "GET", `${BASE}/upd-happy`, { key: t.adminKey });
    expect(read.body.data).toEqual(r.body.data);
  });

  it("null clears legalName and country, identifiers is replaced whole (null clears it)", async () => {
    await organisation("upd-clear");
    const replaced = await patch("upd-clear", { identifiers: [{ scheme: "VAT", value: "NL123" }] });
    expect(replaced.body.data.identifiers).toEqual([{ scheme: "VAT", value: "NL123" }]);
    const cleared = await patch("upd-clear", { legalName: null, country: null, identifiers: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toMatchObject({ legalName: null, country: null, identifiers: [] });
  });

  it("an empty patch changes nothing and answers the organisation", async () => {
    const before = await organisation("upd-empty");
    const r = await patch("upd-empty", {});
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(before);
  });

  it("400 ValidationFailed as Create: a country that is not ISO 3166-1 alpha-2, an empty displayName, an unknown member", async () => {
    await organisation("upd-invalid");
    for (const body of [
      { country: "Netherlands" },
      { country: "nl" },
      { displayName: " " },
      { colour: "red" },
    ]) {
      const r = await patch("upd-invalid", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(errorCode(r)).toBe("ValidationFailed");
    }
    const country = await patch("upd-invalid", { country: "Netherlands" });
    expect(JSON.stringify(country.body.error.details)).toContain("ISO 3166-1 alpha-2");
    const read = await call(t, "GET", `${BASE}/upd-invalid`, { key: t.adminKey });
    expect(read.body.data).toMatchObject({ displayName: "Acme Bank", country: "NL" });
  });

  it("400 ReadOnlyField for the reference (the path key) and the other read-only members", async () => {
    await organisation("upd-readonly");
    const r = await patch("upd-readonly", { reference: "renamed", createdAt: "2026-01-01T00:00:00Z" });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("ReadOnlyField");
    expect(r.body.error.details.map((d: { target: string }) => d.target).sort()).toEqual([
      "createdAt",
      "reference",
    ]);
    expect((await call(t, "GET", `${BASE}/renamed`, { key: t.adminKey })).status).toBe(404);
  });

  it("404 for an unknown reference", async () => {
    const r = await patch("no-such-org", { displayName: "X" });
    expect(r.status).toBe(404);
    expect(errorCode(r)).toBe("NotFound");
  });

  it("401 without a key or with a malformed one", async () => {
    await organisation("upd-auth");
    expect((await patch("upd-auth", { displayName: "X" }, "")).status).toBe(401);
    const malformed = await call(t, "PATCH", `${BASE}/upd-auth`, {
      headers: { authorization: "ApiKey nope" },
      body: { displayName: "X" },
    });
    expect(malformed.status).toBe(401);
    expect(errorCode(malformed)).toBeTruthy();
  });

  it("403 for a key with organisations.read only", async () => {
    await organisation("upd-scope");
    const reader = await t.key({ scopes: ["organisations.read"] });
    const r = await patch("upd-scope", { displayName: "X" }, reader);
    expect(r.status).toBe(403);
    errorCode(r);
    const manager = await t.key({ scopes: ["organisations.manage"] });
    expect((await patch("upd-scope", { displayName: "Managed" }, manager)).status).toBe(200);
  });

  it("404 across tenants and across environments, and the organisation stays unchanged", async () => {
    await organisation("upd-isolated");
    const other = await t.otherTenant();
    const production = await t.key({ environment: "production" });
    for (const key of [other.key, production]) {
      const r = await patch("upd-isolated", { displayName: "Taken over" }, key);
      expect(r.status).toBe(404);
      expect(errorCode(r)).toBe("NotFound");
    }
    const read = await call(t, "GET", `${BASE}/upd-isolated`, { key: t.adminKey });
    expect(read.body.data.displayName).toBe("Acme Bank");
  });

  it("is audited against the organisation, success and refusal alike", async () => {
    await organisation("upd-audited");
    await patch("upd-audited", { displayName: "Audited" });
    await patch("upd-audited", { country: "xx" });
    const events = await call(t, "GET", "/management/audit-events?operation=Organisations_Update", {
      key: t.adminKey,
    });
    expect(events.status).toBe(200);
    const mine = events.body.data.filter((e: { target: { id: string } }) => e.target.id === "upd-audited");
    expect(mine.map((e: { target: unknown; outcome: unknown }) => e.target)).toEqual([
      { type: "organisation", id: "upd-audited" },
      { type: "organisation", id: "upd-audited" },
    ]);
  });
});
