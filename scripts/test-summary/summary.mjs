// The end of `pnpm test` (scripts/test.mjs): one line per suite (passed, failed, skipped, duration),
// every skipped test with its reason, and last every failed test with the first line of its error (last,
// so that the tail of a long CI log still names them). Pure functions over what the runners report,
// tested on samples.
//
// Where a skip's reason comes from (docs/testing.md): vitest: `ctx.skip("reason")`, else a trailing
// `[reason]` in the name of the skipped test or of the nearest suite around it that has one (how
// `it.skipIf(...)` / `describe.skipIf(...)` say why); Playwright: the description of `test.skip(…, "reason")`,
// else the same trailing `[reason]`.

const BRACKETED = /\[([^\]]+)\]\s*$/;

/** A skipped vitest test's reason, or null when it gives none. */
export function vitestSkipReason(test) {
  if (test.note) return test.note;
  for (const name of [test.name, ...[...test.suites].reverse()]) {
    const match = BRACKETED.exec(name);
    if (match?.[1]) return match[1];
  }
  return null;
}

/** The first non-empty line of an error message, at most 300 characters, or null. */
function firstLine(message) {
  const line = message?.split("\n").find((l) => l.trim());
  if (!line) return null;
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/** Counts, skips and failures of one vitest run, from vitest-outcomes-reporter.mjs's file. */
export function vitestOutcome(report) {
  const outcome = { passed: 0, failed: 0, skipped: 0, skips: [], failures: [] };
  for (const test of report.tests) {
    if (test.state === "passed") {
      outcome.passed++;
      continue;
    }
    const name = [test.file, ...test.suites, test.name].join(" > ");
    if (test.state === "skipped") {
      outcome.skipped++;
      outcome.skips.push({ name, reason: vitestSkipReason(test) });
    } else {
      // failed, or still pending when the run ended
      outcome.failures.push({
        name,
        error: firstLine(test.error) ?? (test.state === "failed" ? null : `ended ${test.state}`),
      });
    }
  }
  // A file that did not load has no tests to count: it counts as one failure.
  for (const { file, message } of report.moduleErrors) {
    outcome.failures.push({ name: file, error: firstLine(message) });
  }
  for (const message of report.unhandledErrors) {
    outcome.failures.push({ name: "(unhandled error)", error: firstLine(message) });
  }
  outcome.failed = outcome.failures.length;
  return outcome;
}

/** Counts, skips and failures of one Playwright run, from its JSON reporter. */
export function playwrightOutcome(report) {
  const outcome = { passed: 0, failed: 0, skipped: 0, skips: [], failures: [] };
  const visit = (suite, titles) => {
    const here = suite.title && suite.title !== suite.file ? [...titles, suite.title] : titles;
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        const name = [spec.file ?? suite.file, ...here.filter((t) => t !== spec.file), spec.title]
          .filter(Boolean)
          .join(" > ");
        if (test.status === "skipped") {
          outcome.skipped++;
          const annotation = (test.annotations ?? []).find((a) => a.type === "skip" || a.type === "fixme");
          const tagged = [spec.title, ...[...here].reverse()]
            .map((t) => BRACKETED.exec(t)?.[1])
            .find(Boolean);
          outcome.skips.push({ name, reason: annotation?.description || tagged || null });
        } else if (test.status === "expected" || test.status === "flaky") outcome.passed++;
        else {
          const last = test.results?.at(-1);
          outcome.failures.push({
            name,
            error: firstLine(last?.error?.message ?? last?.errors?.[0]?.message) ?? `ended ${test.status}`,
          });
        }
      }
    }
    for (const child of suite.suites ?? []) visit(child, here);
  };
  for (const suite of report.suites ?? []) visit(suite, []);
  for (const error of report.errors ?? []) {
    outcome.failures.push({ name: "(run error)", error: firstLine(error.message) });
  }
  outcome.failed = outcome.failures.length;
  return outcome;
}

/** 75 s → "1m 15s"; 4.2 s → "4.2s". */
export function formatDuration(ms) {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`;
}

/**
 * The summary's lines. `suites`: in the order run, each `{ label, status: "passed" | "failed" |
 * "not run", durationMs, outcome?, note? }`; `outcome` when its runner reports tests, `note` says why
 * a suite did not run.
 */
export function summaryLines(suites) {
  const width = Math.max(...suites.map((s) => s.label.length));
  const lines = ["", "=== Summary ==="];
  for (const suite of suites) {
    const mark = suite.status === "passed" ? "ok  " : suite.status === "failed" ? "FAIL" : "--  ";
    const counts = suite.outcome
      ? `${suite.outcome.passed} passed, ${suite.outcome.failed} failed, ${suite.outcome.skipped} skipped`
      : suite.status === "not run"
        ? `not run${suite.note ? ` (${suite.note})` : ""}`
        : `${suite.status}${suite.note ? ` (${suite.note})` : ""}`;
    const time = suite.status === "not run" ? "" : `  ${formatDuration(suite.durationMs)}`;
    lines.push(`${mark} ${suite.label.padEnd(width)}  ${counts}${time}`);
  }
  const skipped = suites.flatMap((s) =>
    (s.outcome?.skips ?? []).map((skip) => ({ suite: s.label, ...skip })),
  );
  if (skipped.length) {
    lines.push("", `Skipped tests (${skipped.length}):`);
    for (const skip of skipped) {
      lines.push(
        `  ${skip.suite}: ${skip.name}`,
        `      reason: ${skip.reason ?? "none given (see docs/testing.md)"}`,
      );
    }
  }
  const failed = suites.flatMap((s) =>
    (s.outcome?.failures ?? []).map((failure) => ({ suite: s.label, ...failure })),
  );
  if (failed.length) {
    lines.push("", `Failed tests (${failed.length}):`);
    for (const failure of failed) {
      lines.push(`  ${failure.suite}: ${failure.name}`, `      error: ${failure.error ?? "none reported"}`);
    }
  }
  return lines;
}
