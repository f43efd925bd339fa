// A vitest reporter for `pnpm test` (scripts/test.mjs): writes every test's outcome, with the reason of a
// skipped one (its `ctx.skip(note)`) and the error of a failed one, to the file TEST_OUTCOMES_FILE names,
// for the summary at the end.
// The default reporter still prints the run as before.
import fs from "node:fs";
import path from "node:path";

export default class OutcomesReporter {
  onTestRunEnd(testModules, unhandledErrors) {
    const file = process.env.TEST_OUTCOMES_FILE;
    if (!file) return;
    const tests = [];
    const moduleErrors = [];
    for (const testModule of testModules) {
      const relative = path.relative(process.cwd(), testModule.moduleId);
      const errors = testModule.errors?.() ?? [];
      if (errors.length)
        moduleErrors.push({ file: relative, message: errors[0]?.message ?? "failed to load" });
      for (const test of testModule.children.allTests()) {
        const result = test.result();
        const suites = [];
        for (let parent = test.parent; parent && parent.type !== "module"; parent = parent.parent) {
          suites.unshift(parent.name);
        }
        tests.push({
          file: relative,
          suites,
          name: test.name,
          state: result.state,
          note: result.note ?? null,
          error: result.errors?.[0]?.message ?? null,
          durationMs: test.diagnostic()?.duration ?? 0,
        });
      }
    }
    fs.writeFileSync(
      file,
      JSON.stringify({
        tests,
        moduleErrors,
        unhandledErrors: unhandledErrors.map((error) => error?.message ?? String(error)),
      }),
    );
  }
}
