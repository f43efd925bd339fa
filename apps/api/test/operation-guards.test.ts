import { SCOPES, type Scope } from "@cred/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

/**
 * The checks every REST operation makes before it looks at its input, for every operation the OpenAPI
 * document lists (so a new operation is covered without touching this file): 401 without a key, 403 for
 * a key without the operation's scopes, 400 without `api-version` on the management plane, and 429 once
 * the key's budget is spent.
 */
interface Operation {
  id: string;
  method: string;
  path: string;
  scopes: Scope[];
}

let t: TestServer;
let throttled: TestServer;
let operations: Operation[];

beforeAll(async () => {
  t = await startTestServer();
  throttled = await startTestServer({ rateLimit: { points: 1, durationSeconds: 60 } });
  const doc = (await call(t, "GET", "/openapi.json")).body as {
    paths: Record<string, Record<string, { operationId: string; "x-required-scopes": Scope[] }>>;
  };
  operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      id: op.operationId,
      method: method.toUpperCase(),
      // Any well-formed id: the guards answer before the resource is looked up.
      path: path.replace(/\{[^}]+\}/g, "guard-probe"),
      scopes: op["x-required-scopes"],
    })),
  );
});

afterAll(async () => {
  await t?.close();
  await throttled?.close();
});

const send = (server: TestServer, op: Operation, options: Parameters<typeof call>[3] = {}) =>
  call(server, op.method, op.path, { ...(op.method === "GET" ? {} : { body: {} }), ...options });

describe("guards of every REST operation (from openapi.json)", () => {
  it("lists the spec's 31 operations and every one declares its scopes", () => {
    const ids = operations.map((o) => o.id);
    for (const id of [
      "Organisations_Create",
      "Issuers_GetReadiness",
      "CredentialConfigurations_Create",
      "VerificationPolicies_Reactivate",
      "WebhookDeliveries_List",
      "IssuanceTransactions_Cancel",
      "Credentials_Issue",
      "Credentials_Revoke",
      "Verifications_Get",
      "VerificationSessions_Submit",
    ])
      expect(ids).toContain(id);
    expect(operations.length).toBeGreaterThanOrEqual(31);
    for (const op of operations) expect(op.scopes.length, op.id).toBeGreaterThan(0);
  });

  it("401 Unauthenticated without a key, and with an unknown key", async () => {
    for (const op of operations) {
      for (const key of [null, "cp_sandbox_unknown0000000000000000000000"]) {
        const r = await send(t, op, { key });
        expect([op.id, r.status]).toEqual([op.id, 401]);
        expect(errorCode(r)).toBe("Unauthenticated");
      }
    }
  });

  it("403 MissingScope for a key holding every scope but the operation's", async () => {
    for (const op of operations) {
      const key = await t.key({ scopes: SCOPES.filter((s) => !op.scopes.includes(s)) });
      const r = await send(t, op, { key });
      expect([op.id, r.status]).toEqual([op.id, 403]);
      expect(errorCode(r)).toBe("MissingScope");
    }
  });

  it("400 MissingApiVersion on every management operation called without api-version", async () => {
    const management = operations.filter((o) => o.path.startsWith("/management/"));
    expect(management.length).toBeGreaterThanOrEqual(21);
    for (const op of management) {
      const r = await send(t, op, { key: t.adminKey, apiVersion: false });
      expect([op.id, r.status]).toEqual([op.id, 400]);
      expect(errorCode(r)).toBe("MissingApiVersion");
    }
  });

  it("429 Throttled with Retry-After once a key's budget is spent, on every operation", async () => {
    for (const op of operations) {
      const key = await throttled.key();
      await send(throttled, op, { key });
      const r = await send(throttled, op, { key });
      expect([op.id, r.status]).toEqual([op.id, 429]);
      expect(errorCode(r)).toBe("Throttled");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    }
  });

  it("logs none of these expected refusals (nor a 404 or 409) as an error", async () => {
    const logged: unknown[] = [];
    const log = t.server.app.log as unknown as { error: (...args: unknown[]) => void };
    const original = log.error;
    log.error = (...args: unknown[]) => void logged.push(args);
    try {
      const ref = `quiet-${Date.now()}`;
      const body = { reference: ref, displayName: "Quiet" };
      expect((await call(t, "POST", "/management/organisations", { key: t.adminKey, body })).status).toBe(
        201,
      );
      expect((await call(t, "POST", "/management/organisations", { key: t.adminKey, body })).status).toBe(
        409,
      );
      expect((await call(t, "GET", "/management/issuers/nope", { key: t.adminKey })).status).toBe(404);
      for (const op of operations.slice(0, 3)) await send(t, op, { key: null });
      expect(logged).toEqual([]);
    } finally {
      log.error = original;
    }
  });
});
