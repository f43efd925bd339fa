import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import playwrightSample from "./samples/playwright.json";
import { formatDuration, playwrightOutcome, summaryLines, vitestOutcome } from "./summary.mjs";

const here = __dirname;
const root = path.resolve(here, "../..");
const scratch = fs.mkdtempSync(path.join(here, ".tmp-"));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** A small vitest run through the outcomes reporter, as `pnpm test` runs each project. */
function vitestReportOf(source: string) {
  fs.writeFileSync(path.join(scratch, "sample.spec.ts"), source);
  const outcomes = path.join(scratch, "outcomes.json");
  fs.writeFileSync(
    path.join(scratch, "vitest.config.mjs"),
    'export default { test: { include: ["*.spec.ts"] } };\n',
  );
  spawnSync(
    path.join(root, "node_modules/.bin/vitest"),
    [
      "run",
      "--root",
      scratch,
      "--config",
      path.join(scratch, "vitest.config.mjs"),
      "--reporter=default",
      `--reporter=${path.join(here, "vitest-outcomes-reporter.mjs")}`,
    ],
    { cwd: scratch, env: { ...process.env, TEST_OUTCOMES_FILE: outcomes }, encoding: "utf8" },
  );
  return JSON.parse(fs.readFileSync(outcomes, "utf8"));
}

describe("pnpm test's summary", () => {
  it("counts a vitest run and gives each skipped test its reason (note, or [reason] in its or its suite's name)", () => {
    const report = vitestReportOf(`
import { describe, expect, it } from "vitest";
it("passes", () => expect(1).toBe(1));
it("fails", () => expect(1).toBe(2));
it.skipIf(true)("runs on PostgreSQL [needs TEST_POSTGRES_URL]", () => {});
describe.skipIf(true)("embedded only [embedded database only]", () => {
  it("one", () => {});
});
it("needs a tool", (ctx) => ctx.skip("promtool is not installed"));
it.skip("says nothing", () => {});
`);
    const outcome = vitestOutcome(report);
    expect(outcome).toMatchObject({ passed: 1, failed: 1, skipped: 4 });
    expect(outcome.failures).toEqual([
      { name: "sample.spec.ts > fails", error: "expected 1 to be 2 // Object.is equality" },
    ]);
    expect(outcome.skips).toEqual([
      {
        name: "sample.spec.ts > runs on PostgreSQL [needs TEST_POSTGRES_URL]",
        reason: "needs TEST_POSTGRES_URL",
      },
      {
        name: "sample.spec.ts > embedded only [embedded database only] > one",
        reason: "embedded database only",
      },
      { name: "sample.spec.ts > needs a tool", reason: "promtool is not installed" },
      { name: "sample.spec.ts > says nothing", reason: null },
    ]);
  }, 120_000);

  it("counts a file that does not load as a failure", () => {
    const report = vitestReportOf(`import "./missing-module";\n`);
    const outcome = vitestOutcome(report);
    expect(outcome).toMatchObject({ passed: 0, failed: 1, skipped: 0 });
    expect(outcome.failures).toEqual([
      { name: "sample.spec.ts", error: expect.stringContaining("missing-module") },
    ]);
  }, 120_000);

  it("counts a Playwright JSON report and takes a skip's reason from its annotation", () => {
    const outcome = playwrightOutcome(playwrightSample);
    expect(outcome).toMatchObject({ passed: 1, failed: 1, skipped: 2 });
    expect(outcome.skips).toEqual([
      { name: "sample.spec.ts > skipped statically", reason: null },
      { name: "sample.spec.ts > group > skipped inside", reason: "needs a wallet" },
    ]);
    expect(outcome.failures).toEqual([
      { name: "sample.spec.ts > group > fails", error: "Error: expect(received).toBe(expected)" },
    ]);
  });

  it("ends with one line per suite, every skipped test with its reason, then every failed test with its error", () => {
    const lines = summaryLines([
      {
        label: "Unit tests",
        status: "passed",
        durationMs: 75_000,
        outcome: { passed: 10, failed: 0, skipped: 1, skips: [{ name: "a.test.ts > x", reason: "why" }] },
      },
      {
        label: "HTTP tests (PostgreSQL)",
        status: "not run",
        durationMs: 0,
        note: "TEST_POSTGRES_URL not set",
      },
      {
        label: "HTTP tests (embedded PGlite)",
        status: "failed",
        durationMs: 4200,
        outcome: {
          passed: 3,
          failed: 1,
          skipped: 0,
          skips: [],
          failures: [{ name: "b.test.ts > y", error: "expected 500 to be 200" }],
        },
      },
      { label: "Benchmark smoke", status: "failed", durationMs: 4200 },
    ]);
    expect(lines).toEqual([
      "",
      "=== Summary ===",
      "ok   Unit tests                    10 passed, 0 failed, 1 skipped  1m 15s",
      "--   HTTP tests (PostgreSQL)       not run (TEST_POSTGRES_URL not set)",
      "FAIL HTTP tests (embedded PGlite)  3 passed, 1 failed, 0 skipped  4.2s",
      "FAIL Benchmark smoke               failed  4.2s",
      "",
      "Skipped tests (1):",
      "  Unit tests: a.test.ts > x",
      "      reason: why",
      "",
      "Failed tests (1):",
      "  HTTP tests (embedded PGlite): b.test.ts > y",
      "      error: expected 500 to be 200",
    ]);
    expect(formatDuration(3_605_000)).toBe("60m 05s");
  });
});
