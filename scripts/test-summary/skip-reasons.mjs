// Every skip in the repository's tests says why, so that `pnpm test` can list the reason (summary.mjs):
// vitest: a trailing `[reason]` in the title of `it.skip`, `it.skipIf(…)`, `describe.skipIf(…)`, … (or
// the helpers of apps/api/test/skip-reasons.ts), a string in `ctx.skip("reason")`; Playwright: a
// description in `test.skip(condition, "reason")` or a `[reason]` title. docs/testing.md.

const SKIP_CALL =
  /\b(describe|it|test|suite)\.(skip|skipIf|runIf|todo|fixme)\s*\(|\b(ctx|context|t)\.skip\s*\(/g;
const STRING = /^\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|`((?:[^`\\]|\\.)*)`)/;
const TAGGED = /\[[^\]]+\]\s*$/;

/** The text inside the parentheses that open at `open` (naive about parentheses inside strings). */
function argumentsAt(source, open) {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    if (source[i] === "(") depth++;
    else if (source[i] === ")" && --depth === 0) return { text: source.slice(open + 1, i), end: i };
  }
  return { text: source.slice(open + 1), end: source.length };
}

/**
 * Whether the title that `text` starts with ends in `[reason]`. A template literal with substitutions
 * (its reason computed, e.g. `… ${reason ? ` [${reason}]` : ""}`) is checked for a bracket on its line.
 */
function titleIsTagged(text) {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("`") && trimmed.split("\n")[0].includes("${"))
    return /\[.*\]/.test(trimmed.split("\n")[0]);
  const title = stringAtStart(trimmed);
  return title === null ? null : TAGGED.test(title);
}

const stringAtStart = (text) => {
  const match = STRING.exec(text);
  return match ? (match[1] ?? match[2] ?? match[3] ?? "") : null;
};

/** The 1-based lines of `source` where a skip gives no reason. `playwright`: the file is a Playwright spec. */
export function skipsWithoutReason(source, { playwright = false } = {}) {
  const lines = [];
  for (const match of source.matchAll(SKIP_CALL)) {
    const open = match.index + match[0].length - 1;
    const args = argumentsAt(source, open);
    let ok;
    if (match[3]) {
      // ctx.skip("reason") or ctx.skip(condition, "reason")
      ok = /["'`]/.test(args.text);
    } else if (match[2] === "skipIf" || match[2] === "runIf") {
      // describe.skipIf(condition)("title [reason]", …)
      const rest = source.slice(args.end + 1).trimStart();
      ok = rest.startsWith("(") && titleIsTagged(rest.slice(1)) === true;
    } else {
      const tagged = titleIsTagged(args.text);
      if (tagged !== null) ok = tagged;
      else
        ok =
          playwright && // test.skip(condition, "reason")
          args.text
            .split(",")
            .slice(1)
            .some((arg) => stringAtStart(arg) !== null);
    }
    if (!ok) lines.push(source.slice(0, match.index).split("\n").length);
  }
  return lines;
}
