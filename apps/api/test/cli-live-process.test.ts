import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { operatorSocketPath } from "../src/cli/operator-socket";
import { freePort } from "./fixtures/free-port";
import { call } from "./harness";
import { describeOnEmbedded } from "./skip-reasons";

/** The API as `pnpm start` runs it (src/main.ts), with the CLI beside it on the same data folder (issue #26). */

const apiDir = path.resolve(__dirname, "..");
const TSX = path.resolve(apiDir, "node_modules/.bin/tsx");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-live-process-"));
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DATA_DIR: dataDir,
  DATABASE_URL: "",
  LOG_LEVEL: "silent",
  NODE_ENV: "development",
};

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(TSX, ["src/cli/main.ts", ...args], { cwd: apiDir, env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describeOnEmbedded("pnpm cli beside the API process", () => {
  let api: ChildProcess | undefined;
  let baseUrl = "";
  const exited = () =>
    new Promise<void>((resolve) => {
      if (!api || api.exitCode !== null || api.signalCode !== null) resolve();
      else api.once("exit", () => resolve());
    });

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: apiDir,
      env: { ...env, PORT: String(port), HOST: "127.0.0.1", RUN_WORKER: "false" },
      stdio: "ignore",
    });
    api = child;
    const until = Date.now() + 180_000;
    while (
      !(await fetch(`${baseUrl}/readyz`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > until || child.exitCode !== null) throw new Error("the API did not start");
      await new Promise((r) => setTimeout(r, 250));
    }
  }, 200_000);

  afterAll(async () => {
    if (api && api.exitCode === null) {
      api.kill("SIGKILL");
      await exited();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("revokes the bootstrap key through the running API, which refuses it at once; offline once it stops", async () => {
    expect(fs.statSync(operatorSocketPath(dataDir)).mode & 0o777).toBe(0o600);
    const { apiKey } = JSON.parse(fs.readFileSync(path.join(dataDir, "bootstrap.json"), "utf8"));
    const list = () => call({ baseUrl }, "GET", "/management/organisations", { key: apiKey });
    expect((await list()).status).toBe(200);

    const keys = await cli("keys", "list", "--json");
    expect(keys).toMatchObject({ code: 0, stderr: "" });
    const [bootstrapKey] = JSON.parse(keys.stdout);
    expect(apiKey).toContain(bootstrapKey.prefix);
    const revoked = await cli("keys", "revoke", bootstrapKey.id);
    expect(revoked).toMatchObject({ code: 0, stdout: `Revoked key ${bootstrapKey.id}.\n` });
    expect((await list()).status).toBe(401);

    api?.kill("SIGTERM");
    await exited();
    expect(fs.existsSync(operatorSocketPath(dataDir))).toBe(false);
    const offline = await cli("keys", "list", "--json");
    expect(offline.code).toBe(0);
    expect(JSON.parse(offline.stdout)).toEqual([
      expect.objectContaining({ id: bootstrapKey.id, status: "revoked" }),
    ]);
  }, 240_000);
});
