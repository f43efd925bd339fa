import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { itOnPostgres } from "./skip-reasons";

const run = promisify(execFile);
const TSX = path.resolve(__dirname, "../node_modules/.bin/tsx");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "startup-env-test-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** Runs an entry point with `env`; it is expected to exit at once. */
async function start(entry: string, env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(TSX, [path.resolve(__dirname, "../src", entry)], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", ...env },
      timeout: 20_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("invalid webhook settings at startup", () => {
  for (const entry of ["main.ts", "worker-main.ts"]) {
    it(`${entry} names every bad variable and exits 1, without a stack trace or opening the database`, async () => {
      const r = await start(entry, { WEBHOOK_TIMEOUT_MS: "60000", WEBHOOK_MAX_ATTEMPTS: "0" });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        [
          "Invalid environment:",
          '  WEBHOOK_TIMEOUT_MS must be a whole number from 1 to 30000 (got "60000").',
          '  WEBHOOK_MAX_ATTEMPTS must be a whole number from 1 to 50 (got "0").',
          "",
        ].join("\n"),
      );
      expect(r.stdout).toBe("");
      expect(fs.readdirSync(dataDir)).toEqual([]);
    });
  }
});

describe("master key at startup", () => {
  for (const entry of ["main.ts", "worker-main.ts"]) {
    it(`${entry} without MASTER_KEY in production, or with a short one, says so and exits 1 without a stack trace`, async () => {
      // The worker needs PostgreSQL first; the key is checked before any connection is made.
      const db: Record<string, string> =
        entry === "worker-main.ts" ? { DATABASE_URL: "postgres://127.0.0.1:1/unreachable" } : {};
      const missing = await start(entry, {
        ...db,
        NODE_ENV: "production",
        PUBLIC_BASE_URL: "https://credentials.example.com",
        MASTER_KEY: "",
      });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(
        /^Invalid environment:\n {2}MASTER_KEY is required outside development mode/,
      );
      expect(missing.stderr).not.toMatch(/\bat /);
      const short = await start(entry, { ...db, MASTER_KEY: Buffer.alloc(16).toString("base64") });
      expect(short.code).toBe(1);
      expect(short.stderr).toBe(
        "Invalid environment:\n  MASTER_KEY must be 32 bytes, base64-encoded (got 16).\n",
      );
    });
  }
});

describe("a database the start cannot use", () => {
  it("unreachable: one line naming it (without the password) and why, exit 1, no stack trace", async () => {
    const r = await start("main.ts", { DATABASE_URL: "postgres://app:s3cret@127.0.0.1:1/credentials" });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^Cannot use the database at 127\.0\.0\.1:1\/credentials \(DATABASE_URL\): .*ECONNREFUSED.*\n$/,
    );
    expect(r.stderr).not.toContain("s3cret");
    expect(r.stdout).toBe("");
  });

  itOnPostgres("a wrong password: the server's own reason, in one line", async () => {
    const url = new URL(process.env.TEST_POSTGRES_URL as string);
    url.password = "not-the-password";
    const r = await start("main.ts", { DATABASE_URL: url.toString() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Cannot use the database at .*: password authentication failed.*\n$/);
    expect(r.stderr).not.toContain("not-the-password");
  });
});

/** Starts main.ts with `env` and returns what it printed once it says it is running. */
async function startedOutput(env: Record<string, string>): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "startup-warning-test-"));
  // A process group of its own: tsx runs main.ts in a child process, which must go down with it.
  const child = spawn(TSX, [path.resolve(__dirname, "../src/main.ts")], {
    env: { ...process.env, DATA_DIR: dir, DATABASE_URL: "", PORT: "0", LOG_LEVEL: "warn", ...env },
    detached: true,
  });
  try {
    let out = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not started:\n${out}`)), 60_000);
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (/API reference/.test(out) && /\n\n$/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on("exit", () => reject(new Error(`exited:\n${out}`)));
    });
    return out;
  } finally {
    if (child.pid) process.kill(-child.pid, "SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("development mode on a server that looks deployed", () => {
  it("warns when it listens beyond loopback, and not for the local quick start", async () => {
    expect(await startedOutput({ HOST: "0.0.0.0" })).toContain("WARNING: development mode is on");
    expect(await startedOutput({ HOST: "127.0.0.1" })).not.toContain("WARNING");
  }, 120_000);
});
