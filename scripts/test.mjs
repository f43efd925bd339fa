#!/usr/bin/env node
// The whole test suite: contract check, unit tests, use-case and HTTP tests on the embedded database and,
// when TEST_POSTGRES_URL names a PostgreSQL server, both again on PostgreSQL; then browser tests and a
// few-second smoke of the benchmark. Every suite runs, also after one failed; the run ends with one line
// per suite (passed, failed, skipped, duration), every skipped test with its reason and every failed test
// with its error (scripts/test-summary/summary.mjs), and exits 1 if any suite failed.
// `node scripts/test.mjs --only unit,bench` runs the named suites alone (keys below).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { playwrightOutcome, summaryLines, vitestOutcome } from "./test-summary/summary.mjs";

const only = (() => {
  const at = process.argv.indexOf("--only");
  return at === -1 ? null : new Set((process.argv[at + 1] ?? "").split(",").filter(Boolean));
})();
const outcomesDir = fs.mkdtempSync(path.join(os.tmpdir(), "pnpm-test-"));
const suites = [];

/** Runs one suite; `report`: reads its runner's report file (`TEST_OUTCOMES_FILE`) into counts. */
function run(key, label, cmd, args, env = {}, report) {
  if (only && !only.has(key)) return;
  process.stdout.write(`\n=== ${label} ===\n`);
  const outcomesFile = path.join(outcomesDir, `${key}.json`);
  const startedAt = Date.now();
  const result = spawnSync(cmd, args, {
    stdio: "inherit",
    env: {
      ...process.env,
      ...env,
      TEST_OUTCOMES_FILE: outcomesFile,
      PLAYWRIGHT_JSON_OUTPUT_NAME: outcomesFile,
    },
  });
  const durationMs = Date.now() - startedAt;
  let outcome;
  if (report && fs.existsSync(outcomesFile)) {
    try {
      outcome = report(JSON.parse(fs.readFileSync(outcomesFile, "utf8")));
    } catch (error) {
      process.stderr.write(`Could not read the report of ${label}: ${error.message}\n`);
    }
  }
  const status = result.status === 0 ? "passed" : "failed";
  if (status === "failed") process.stderr.write(`\n${label} failed.\n`);
  suites.push({ label, status, durationMs, outcome });
}

function notRun(key, label, note) {
  if (only && !only.has(key)) return;
  suites.push({ label, status: "not run", durationMs: 0, note });
}

/** Browser tests need Debian's Chromium (never `playwright install`); install it when it is missing. */
function ensureChromium() {
  if (fs.existsSync("/usr/bin/chromium")) return true;
  process.stdout.write("\n=== Installing Debian's chromium for the browser tests ===\n");
  const asRoot = process.getuid?.() === 0;
  const apt = (...args) =>
    spawnSync(asRoot ? "apt-get" : "sudo", asRoot ? args : ["apt-get", ...args], {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  apt("update", "-qq");
  apt("install", "-y", "-qq", "chromium");
  if (fs.existsSync("/usr/bin/chromium")) return true;
  process.stderr.write("Could not install chromium (apt-get install chromium); the browser tests need it.\n");
  return false;
}

const vitest = (project) => [
  "vitest",
  "run",
  "--project",
  project,
  "--reporter=default",
  "--reporter=./scripts/test-summary/vitest-outcomes-reporter.mjs",
];

const pg = process.env.TEST_POSTGRES_URL;
run("openapi", "OpenAPI document matches the code", "pnpm", ["--silent", "openapi", "--check"]);
run("unit", "Unit tests", "npx", vitest("unit"), { TEST_POSTGRES_URL: "" }, vitestOutcome);
run(
  "use-case",
  "Use-case tests (embedded PGlite)",
  "npx",
  vitest("use-case"),
  { TEST_POSTGRES_URL: "" },
  vitestOutcome,
);
run("http", "HTTP tests (embedded PGlite)", "npx", vitest("http"), { TEST_POSTGRES_URL: "" }, vitestOutcome);
if (pg) {
  run(
    "use-case-pg",
    "Use-case tests (PostgreSQL)",
    "npx",
    vitest("use-case"),
    { TEST_POSTGRES_URL: pg },
    vitestOutcome,
  );
  run("http-pg", "HTTP tests (PostgreSQL)", "npx", vitest("http"), { TEST_POSTGRES_URL: pg }, vitestOutcome);
} else {
  if (!only || only.has("use-case-pg") || only.has("http-pg"))
    process.stdout.write("\n(TEST_POSTGRES_URL not set: the PostgreSQL pass is skipped; CI runs it.)\n");
  notRun("use-case-pg", "Use-case tests (PostgreSQL)", "TEST_POSTGRES_URL not set");
  notRun("http-pg", "HTTP tests (PostgreSQL)", "TEST_POSTGRES_URL not set");
}
if (!fs.existsSync("e2e/playwright.config.ts")) {
  notRun("e2e", "Browser tests (Playwright)", "no e2e/playwright.config.ts");
} else if (!only || only.has("e2e")) {
  if (ensureChromium()) {
    run(
      "e2e",
      "Browser tests (Playwright)",
      "pnpm",
      ["--filter", "@cred/e2e", "test", "--reporter=list,json"],
      {},
      playwrightOutcome,
    );
  } else
    suites.push({
      label: "Browser tests (Playwright)",
      status: "failed",
      durationMs: 0,
      note: "no chromium",
    });
}
run("bench", "Benchmark smoke (pnpm bench --smoke)", "pnpm", ["--silent", "bench", "--smoke"]);

fs.rmSync(outcomesDir, { recursive: true, force: true });
process.stdout.write(`${summaryLines(suites).join("\n")}\n`);
process.exit(suites.some((s) => s.status === "failed") ? 1 : 0);
