import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { PLATFORM_SCOPE } from "@cred/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { describeOnPostgres } from "./skip-reasons";

/**
 * A suspension made through one API process reaches another on the same PostgreSQL database within the
 * 2-second life of its cached tenant status (rpc.tenantSuspended, docs/api/tenants.md), and so does the
 * reactivation: `a` in this process, `b` a child running main.ts.
 */
const PROPAGATION_MS = 2_000;

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

describeOnPostgres("tenant suspension across API processes", () => {
  const masterKey = randomBytes(32);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "suspension-multi-"));
  let a: TestServer;
  let b: ChildProcess;
  let bOrigin: string;

  beforeAll(async () => {
    a = await startTestServer({ masterKey });
    const databaseUrl = (a.server.database.pool as unknown as { options: { connectionString: string } })
      .options.connectionString;
    const port = await freePort();
    bOrigin = `http://127.0.0.1:${port}`;
    b = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: path.resolve(__dirname, ".."),
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        MASTER_KEY: masterKey.toString("base64"),
        PUBLIC_BASE_URL: a.baseUrl,
        PORT: String(port),
        DATA_DIR: dataDir,
        RUN_WORKER: "false",
        LOG_LEVEL: "silent",
      },
      stdio: "ignore",
    });
    const until = Date.now() + 60_000;
    for (;;) {
      const up = await fetch(`${bOrigin}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (Date.now() > until) throw new Error("the second API process did not start");
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 90_000);

  afterAll(async () => {
    b?.kill("SIGKILL");
    await a?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
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
