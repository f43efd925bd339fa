#!/usr/bin/env node
// The whole test suite: contract check, unit tests, use-case and HTTP tests on the embedded database and,
// when TEST_POSTGRES_URL names a PostgreSQL server, both again on PostgreSQL; then browser tests and a
// few-second smoke of the benchmark.
import { spawnSync } from "node:child_process";
import fs from "node:fs";

const run = (label, cmd, args, env = {}) => {
  process.stdout.write(`\n=== ${label} ===\n`);
  const result = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, ...env } });
  if (result.status !== 0) {
    process.stderr.write(`\n${label} failed.\n`);
    process.exit(result.status ?? 1);
  }
};

/** Browser tests need Debian's Chromium (never `playwright install`); install it when it is missing. */
function ensureChromium() {
  if (fs.existsSync("/usr/bin/chromium")) return;
  process.stdout.write("\n=== Installing Debian's chromium for the browser tests ===\n");
  const asRoot = process.getuid?.() === 0;
  const apt = (...args) =>
    spawnSync(asRoot ? "apt-get" : "sudo", asRoot ? args : ["apt-get", ...args], {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  apt("update", "-qq");
  apt("install", "-y", "-qq", "chromium");
  if (!fs.existsSync("/usr/bin/chromium")) {
    process.stderr.write(
      "Could not install chromium (apt-get install chromium); the browser tests need it.\n",
    );
    process.exit(1);
  }
}

const pg = process.env.TEST_POSTGRES_URL;
run("OpenAPI document matches the code", "pnpm", ["--silent", "openapi", "--check"]);
run("Unit tests", "npx", ["vitest", "run", "--project", "unit"], { TEST_POSTGRES_URL: "" });
run("Use-case tests (embedded PGlite)", "npx", ["vitest", "run", "--project", "use-case"], {
  TEST_POSTGRES_URL: "",
});
run("HTTP tests (embedded PGlite)", "npx", ["vitest", "run", "--project", "http"], { TEST_POSTGRES_URL: "" });
if (pg) {
  run("Use-case tests (PostgreSQL)", "npx", ["vitest", "run", "--project", "use-case"], {
    TEST_POSTGRES_URL: pg,
  });
  run("HTTP tests (PostgreSQL)", "npx", ["vitest", "run", "--project", "http"], { TEST_POSTGRES_URL: pg });
} else process.stdout.write("\n(TEST_POSTGRES_URL not set: the PostgreSQL pass is skipped; CI runs it.)\n");
if (fs.existsSync("e2e/playwright.config.ts")) {
  ensureChromium();
  run("Browser tests (Playwright)", "pnpm", ["--filter", "@cred/e2e", "test"]);
}
run("Benchmark smoke (pnpm bench --smoke)", "pnpm", ["--silent", "bench", "--smoke"]);
