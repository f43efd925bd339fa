import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";

/**
 * Browser tests against a real API (fresh embedded database in a temp DATA_DIR) and the built console,
 * in Debian's Chromium (never `playwright install`). Ports and DATA_DIR are chosen once in the runner
 * and inherited by the workers through the environment.
 */
function freePort(): string {
  return execFileSync(process.execPath, [
    "-e",
    "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})",
  ]).toString();
}

/** Each run gets a fresh DATA_DIR; runs older than a few hours leave theirs behind, so sweep those. */
function sweepOldDataDirs() {
  const cutoff = Date.now() - 6 * 3600_000;
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith("cred-e2e-")) continue;
    const dir = path.join(os.tmpdir(), name);
    try {
      if (fs.statSync(dir).mtimeMs < cutoff) fs.rmSync(dir, { recursive: true, force: true });
    } catch {}
  }
}

if (!process.env.E2E_DATA_DIR) sweepOldDataDirs();
process.env.E2E_API_PORT ??= freePort();
process.env.E2E_CONSOLE_PORT ??= freePort();
process.env.E2E_DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "cred-e2e-"));

const apiPort = process.env.E2E_API_PORT;
const consolePort = process.env.E2E_CONSOLE_PORT;
const apiOrigin = `http://127.0.0.1:${apiPort}`;
const root = path.resolve(import.meta.dirname, "..");

export default defineConfig({
  testDir: "./tests",
  outputDir: "./test-results",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: "list",
  use: {
    baseURL: `http://127.0.0.1:${consolePort}`,
    screenshot: "on",
    trace: "retain-on-failure",
    ...devices["Desktop Chrome"],
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  webServer: [
    {
      name: "API",
      command: "pnpm --silent --filter @cred/api start",
      cwd: root,
      url: `${apiOrigin}/healthz`,
      timeout: 120_000,
      reuseExistingServer: false,
      stdout: "ignore",
      env: {
        PORT: apiPort,
        HOST: "127.0.0.1",
        PUBLIC_BASE_URL: apiOrigin,
        DATA_DIR: process.env.E2E_DATA_DIR,
        WEBHOOK_ALLOWED_HOSTS: "127.0.0.1,localhost",
        LOG_LEVEL: "warn",
        RUN_WORKER: "true",
      },
    },
    {
      name: "Console",
      command: "node apps/console/scripts/serve.mjs",
      cwd: root,
      url: `http://127.0.0.1:${consolePort}/`,
      timeout: 300_000,
      reuseExistingServer: false,
      stdout: "ignore",
      // NODE_ENV=development as people export it (the README's default mode): the console still has to
      // build and serve (its scripts give Next.js NODE_ENV=production).
      env: {
        CONSOLE_PORT: consolePort,
        CONSOLE_HOST: "127.0.0.1",
        API_ORIGIN: apiOrigin,
        NODE_ENV: "development",
      },
    },
  ],
});
