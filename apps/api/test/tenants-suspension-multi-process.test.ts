import { randomBytes } from "node:crypto";
import { PLATFORM_SCOPE } from "@cred/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startSecondProcess } from "./fixtures/second-process";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { describeOnPostgres } from "./skip-reasons";

/**
 * A suspension made through one API process reaches another on the same PostgreSQL database within the
 * 2-second life of its cached tenant status (rpc.tenantSuspended, docs/api/tenants.md), and so does the
 * reactivation: `a` in this process, `b` a child running main.ts.
 */
const PROPAGATION_MS = 2_000;

describeOnPostgres("tenant suspension across API processes", () => {
  const masterKey = randomBytes(32);
  let a: TestServer;
  let b: Awaited<ReturnType<typeof startSecondProcess>> | undefined;
  let bOrigin: string;

  beforeAll(async () => {
    a = await startTestServer({ masterKey });
    b = await startSecondProcess(a, masterKey);
    bOrigin = b.origin;
  }, 90_000);

  afterAll(async () => {
    b?.stop();
    await a?.close();
  });

  /** Calls b until `expected` answers; the time it took. */
  async function untilAtB(key: string, expected: number): Promise<number> {
    const started = Date.now();
    for (;;) {
      const r = await call({ baseUrl: bOrigin }, "GET", "/management/organisations", { key });
      if (r.status === expected) {
        if (expected === 403) expect(errorCode(r)).toBe("TenantSuspended");
        return Date.now() - started;
      }
      if (Date.now() - started > PROPAGATION_MS + 3_000) throw new Error(`b still answers ${r.status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it("b refuses the tenant's key within 2 s of a suspension at a, and serves it again after reactivation", async () => {
    const platformKey = await a.key({ scopes: [PLATFORM_SCOPE] });
    const created = await call(a, "POST", "/management/tenants", {
      key: platformKey,
      body: { name: "Spread" },
    });
    const tenantId = created.body.data.id as string;
    const key = await a.key({ tenantId });
    // b has the tenant's status cached as active.
    expect((await call({ baseUrl: bOrigin }, "GET", "/management/organisations", { key })).status).toBe(200);

    expect(
      (await call(a, "POST", `/management/tenants/${tenantId}/suspend`, { key: platformKey, body: {} }))
        .status,
    ).toBe(200);
    expect(await untilAtB(key, 403)).toBeLessThanOrEqual(PROPAGATION_MS + 500);

    expect(
      (await call(a, "POST", `/management/tenants/${tenantId}/reactivate`, { key: platformKey, body: {} }))
        .status,
    ).toBe(200);
    expect(await untilAtB(key, 200)).toBeLessThanOrEqual(PROPAGATION_MS + 500);
  });
});
