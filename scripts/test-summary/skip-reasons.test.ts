import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { skipsWithoutReason } from "./skip-reasons.mjs";

const root = path.resolve(__dirname, "../..");
/** Writes skips on purpose, inside the samples it runs. */
const EXEMPT = new Set(["scripts/test-summary/summary.test.ts", "scripts/test-summary/skip-reasons.test.ts"]);

describe("skip reasons", () => {
  it("finds the skips that give no reason", () => {
    const source = [
      'it.skip("no reason", () => {});', // 1
      'it.skip("with one [needs X]", () => {});',
      'describe.skipIf(!process.env.X)("group", () => {});', // 3
      'describe.skipIf(Boolean(process.env.X))(\n  "group [embedded only]",\n  () => {},\n);',
      "it('dynamic', (ctx) => ctx.skip());", // 8
      'it("dynamic", (ctx) => { if (a) return ctx.skip("promtool missing"); });',
      "it.todo(`later`);", // 10
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a test, as text
      'describe.skipIf(why)(`topology${why ? ` [${why}]` : ""}`, () => {});',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a test, as text
      'describe.skipIf(why)(`topology${why ? ` (${why})` : ""}`, () => {});', // 12
    ].join("\n");
    expect(skipsWithoutReason(source)).toEqual([1, 3, 8, 10, 12]);
    expect(
      skipsWithoutReason('test.skip(isMobile, "no touch support");\ntest.skip(isMobile);', {
        playwright: true,
      }),
    ).toEqual([2]);
  });

  it("every skip in the repository's tests gives its reason", () => {
    const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
      cwd: root,
      encoding: "utf8",
    })
      .split("\n")
      .filter((f) => /\.(test|spec)\.(ts|mts|mjs|tsx)$/.test(f) || /^e2e\/.*\.ts$/.test(f))
      .filter((f) => !EXEMPT.has(f) && fs.existsSync(path.join(root, f)));
    expect(files.length).toBeGreaterThan(50);
    const missing = files.flatMap((f) =>
      skipsWithoutReason(fs.readFileSync(path.join(root, f), "utf8"), {
        playwright: f.startsWith("e2e/"),
      }).map((line) => `${f}:${line}`),
    );
    expect(missing).toEqual([]);
  });
});
