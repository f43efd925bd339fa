import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { describeOnEmbedded } from "./skip-reasons";

/**
 * `pnpm cli keys create --scopes staff.manage` (docs/api/staff-members.md): production keys only, without
 * an issuer; a sandbox key asking for it is refused with a message (exit 2, as other bad arguments), not a stack trace.
 */

const run = promisify(execFile);
const CLI = path.resolve(__dirname, "../src/cli/main.ts");
const TSX = path.resolve(__dirname, "../node_modules/.bin/tsx");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-staff-scope-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

async function cli(...args: string[]) {
  return run(TSX, [CLI, ...args, "--json"], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", LOG_LEVEL: "silent" },
  });
}

describeOnEmbedded("pnpm cli keys create --scopes staff.manage", () => {
  it("makes a production key with staff.manage and refuses a sandbox one", async () => {
    const tenant = JSON.parse((await cli("tenants", "create", "Team tenant")).stdout);
    const refused = await cli(
      "keys",
      "create",
      "--tenant",
      tenant.id,
      "--env",
      "sandbox",
      "--scopes",
      "staff.manage",
    ).catch((error: { code: number; stderr: string }) => error);
    expect(refused).toMatchObject({ code: 2 });
    expect((refused as { stderr: string }).stderr).toContain("staff.manage is for production keys");
    expect((refused as { stderr: string }).stderr).not.toContain("    at ");

    const key = JSON.parse(
      (await cli("keys", "create", "--tenant", tenant.id, "--env", "production", "--scopes", "staff.manage"))
        .stdout,
    );
    expect(key).toMatchObject({ environment: "production", scopes: ["staff.manage"] });
  }, 120_000);
});
