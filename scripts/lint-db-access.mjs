#!/usr/bin/env node
// `pnpm lint`: inside packages/core/src only repositories (`*-repository.ts`) reach the database
// (docs/architecture.md, "The database and process caches inside core"). Any other source file (tests
// aside) that uses `.prisma.`, `.sql.query`, `$queryRaw*` or `$executeRaw*`, or imports a runtime value
// from `@cred/db` other than the helpers in ALLOWED_RUNTIME_IMPORTS, fails the check.
//
// scripts/db-access-allowlist.txt names the files not converted yet, one path a line (relative to the
// repository, `#` starts a comment); they are skipped, and an entry that no longer needs skipping fails
// the check too, so the list only shrinks. Usage: node scripts/lint-db-access.mjs [root]
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Runtime imports from `@cred/db` any core file may use: they classify an error or describe the unit of
 * work and reach no database. (`Prisma`'s value sentinels such as `Prisma.DbNull` belong in repositories.)
 */
export const ALLOWED_RUNTIME_IMPORTS = new Set(["isUniqueViolation"]);

const CORE = "packages/core/src";
const ALLOWLIST = "scripts/db-access-allowlist.txt";

const DIRECT_ACCESS = [
  { pattern: /\bprisma\s*\??\.\s*[$\w]/, what: "`.prisma.` (Prisma client)" },
  { pattern: /\bsql\s*\??\.\s*query\b/, what: "`.sql.query` (single SQL statement)" },
  { pattern: /\$queryRaw/, what: "`$queryRaw*`" },
  { pattern: /\$executeRaw/, what: "`$executeRaw*`" },
];

/** The text with comments blanked out (line numbers kept), so a comment naming a call is not one. */
function withoutComments(text) {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, " "))
    .replace(/(^|[^:"'`\\])\/\/.*$/gm, (_match, before) => before);
}

const lineOf = (text, index) => text.slice(0, index).split("\n").length;

/** Runtime (non-type) names a file imports or re-exports from `@cred/db`. */
function runtimeDbImports(text) {
  const found = [];
  const statement = /(import|export)\s+(type\s+)?([^;]*?)\s+from\s+["']@cred\/db["']/g;
  for (const match of text.matchAll(statement)) {
    if (match[2]) continue; // `import type { … }`
    const clause = match[3];
    const line = lineOf(text, match.index);
    const named = /\{([^}]*)\}/.exec(clause);
    const outside = clause
      .replace(/\{[^}]*\}/, "")
      .replace(/,/g, " ")
      .trim();
    if (outside) found.push({ name: outside, line }); // a default or namespace import
    for (const raw of named ? named[1].split(",") : []) {
      const entry = raw.trim();
      if (!entry || entry.startsWith("type ")) continue;
      found.push({ name: entry.split(/\s+as\s+/)[0].trim(), line });
    }
  }
  for (const match of text.matchAll(/(?:import\s*\(\s*|import\s+)["']@cred\/db["']/g)) {
    found.push({ name: "the whole module", line: lineOf(text, match.index) });
  }
  return found;
}

/** Why `text` (one core file) reaches the database outside a repository, one line each. */
export function violationsIn(text) {
  const code = withoutComments(text);
  const problems = [];
  for (const { pattern, what } of DIRECT_ACCESS) {
    const global = new RegExp(pattern.source, "g");
    for (const match of code.matchAll(global)) problems.push(`line ${lineOf(code, match.index)}: ${what}`);
  }
  for (const { name, line } of runtimeDbImports(code)) {
    if (!ALLOWED_RUNTIME_IMPORTS.has(name))
      problems.push(`line ${line}: imports ${name} from @cred/db at runtime (use \`import type\`)`);
  }
  return problems;
}

const isChecked = (file) =>
  file.endsWith(".ts") &&
  !file.endsWith(".d.ts") &&
  !file.endsWith(".test.ts") &&
  !file.endsWith("-repository.ts");

function sourceFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(full);
    return isChecked(entry.name) ? [full] : [];
  });
}

function readAllowlist(root) {
  const file = path.join(root, ALLOWLIST);
  if (!fs.existsSync(file)) return new Set();
  return new Set(
    fs
      .readFileSync(file, "utf8")
      .split("\n")
      .map((line) => line.replace(/#.*/, "").trim())
      .filter(Boolean),
  );
}

/** Every problem under `root`: files outside repositories that reach the database, and stale allowlist entries. */
export function checkDbAccess(root) {
  const allowlist = readAllowlist(root);
  const problems = [];
  const seen = new Set();
  for (const full of sourceFiles(path.join(root, CORE))) {
    const file = path.relative(root, full).split(path.sep).join("/");
    const found = violationsIn(fs.readFileSync(full, "utf8"));
    if (allowlist.has(file)) {
      seen.add(file);
      if (found.length === 0)
        problems.push(`${ALLOWLIST}: ${file} no longer reaches the database outside a repository; remove it`);
      continue;
    }
    for (const problem of found) problems.push(`${file} ${problem}`);
  }
  for (const file of allowlist) {
    if (!seen.has(file)) problems.push(`${ALLOWLIST}: ${file} is not a checked core source file; remove it`);
  }
  return problems;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), ".."));
  const problems = checkDbAccess(root);
  if (problems.length > 0) {
    process.stderr.write(
      `Only repositories (*-repository.ts) in ${CORE} may reach the database; move the statement into one:\n${problems
        .map((p) => `  ${p}`)
        .join("\n")}\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`db access: only repositories reach the database in ${CORE}\n`);
}
