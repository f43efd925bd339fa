import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { createServer } from "../src/server";
import { call } from "./harness";
import { describeOnEmbedded } from "./skip-reasons";

/** `pnpm cli keys create --scopes platform.manage`: the only way to a platform key (docs/api/tenants.md). */

const run = promisify(execFile);
const CLI = path.resolve(__dirname, "../src/cli/main.ts");
const TSX = path.resolve(__dirname, "../node_modules/.bin/tsx");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-platform-test-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

async function cli(...args: string[]) {
  const { stdout } = await run(TSX, [CLI, ...args, "--json"], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", LOG_LEVEL: "silent" },
  });
  return JSON.parse(stdout);
}

describeOnEmbedded("pnpm cli keys create --scopes platform.manage", () => {
  it("makes a platform key that reaches Tenants_* and nothing of a tenant's; the scope goes alone", async () => {
    const tenant = await cli("tenants", "create", "Operator tenant");
    const create = (scopes: string, ...extra: string[]) =>
      cli("keys", "create", "--tenant", tenant.id, "--env", "production", "--scopes", scopes, ...extra);
    await expect(create("platform.manage,organisations.read")).rejects.toMatchObject({ code: 2 });
    await expect(create("platform.manage", "--issuer", "iss_x")).rejects.toMatchObject({ code: 2 });
    const key = await create("platform.manage", "--name", "Platform automation");
    expect(key).toMatchObject({ scopes: ["platform.manage"], status: "active" });

    const server = await createServer({
      dataDir,
      masterKey: randomBytes(32),
      publicBaseUrl: "http://localhost",
      developmentMode: true,
      logLevel: "silent",
      rateLimit: { points: 1000, durationSeconds: 1 },
    });
    await server.app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = server.app.server.address() as { port: number };
    const baseUrl = `http://127.0.0.1:${port}`;
    try {
      const listed = await call({ baseUrl }, "GET", "/management/tenants", { key: key.key });
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((x: { id: string }) => x.id)).toContain(tenant.id);
      const orgs = await call({ baseUrl }, "GET", "/management/organisations", { key: key.key });
      expect(orgs.status).toBe(403);
    } finally {
      await server.close();
    }
    // Four CLI processes (each loads tsx and opens the embedded database) and a server: on a loaded
    // 2-core machine this took over the 30 s default.
  }, 120_000);
});
