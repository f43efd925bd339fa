// `pnpm lint` runs scripts/lint-db-access.mjs: inside packages/core/src only repositories reach the
// database. These tests run it on small trees laid out like the repository.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const script = path.resolve(__dirname, "lint-db-access.mjs");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function check(files: Record<string, string>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "db-access-"));
  dirs.push(dir);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  const result = spawnSync(process.execPath, [script, dir], { encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const clean = {
  "packages/core/src/things/thing-repository.ts": [
    'import { Prisma, type UnitOfWork } from "@cred/db";',
    "export const thingRepository = {",
    "  find: (db: UnitOfWork, id: string) => db.prisma.thing.findUnique({ where: { id } }),",
    '  lock: (db: UnitOfWork, id: string) => db.sql.query("SELECT 1 FROM thing WHERE id = $1", [id]),',
    "  clear: (db: UnitOfWork) => db.prisma.thing.updateMany({ data: { extra: Prisma.DbNull } }),",
    "};",
  ].join("\n"),
  "packages/core/src/things/get-thing.ts": [
    'import { isUniqueViolation, type UnitOfWork } from "@cred/db";',
    'import type { Db } from "@cred/db";',
    'import { thingRepository } from "./thing-repository";',
    "// Not db.prisma.thing directly, nor db.sql.query(…): the repository.",
    "export const getThing = (db: UnitOfWork, id: string) => thingRepository.find(db, id);",
    "export const duplicate = isUniqueViolation;",
    "export type Client = Db;",
  ].join("\n"),
  "packages/core/src/things/get-thing.test.ts": "await db.prisma.thing.deleteMany();\n",
};

describe("db access rule (pnpm lint)", () => {
  it("passes when only repositories reach the database", () => {
    const { status, output } = check(clean);
    expect(output).toContain("only repositories reach the database");
    expect(status).toBe(0);
  });

  it("fails on Prisma, SQL or raw queries outside a repository", () => {
    const { status, output } = check({
      ...clean,
      "packages/core/src/things/router.ts": [
        'import type { UnitOfWork } from "@cred/db";',
        "export const a = (db: UnitOfWork) => db.prisma.thing.count();",
        'export const b = (db: UnitOfWork) => db.sql.query("SELECT 1");',
        "export const c = (db: UnitOfWork) => db.prisma.$queryRaw`SELECT 1`;",
        "export const d = (tx: UnitOfWork) => tx.prisma",
        '  .$executeRawUnsafe("DELETE FROM thing");',
      ].join("\n"),
    });
    expect(status).toBe(1);
    expect(output).toContain("packages/core/src/things/router.ts line 2: `.prisma.`");
    expect(output).toContain("line 3: `.sql.query`");
    expect(output).toContain("line 4: `$queryRaw*`");
    expect(output).toContain("line 6: `$executeRaw*`");
  });

  it("fails on a runtime import from @cred/db other than the allowed helpers", () => {
    const { status, output } = check({
      ...clean,
      "packages/core/src/things/update-thing.ts":
        'import { Prisma } from "@cred/db";\nexport const x = Prisma.DbNull;\n',
    });
    expect(status).toBe(1);
    expect(output).toContain("update-thing.ts line 1: imports Prisma from @cred/db at runtime");
  });

  it("skips the files the allowlist names, and fails on an entry that is no longer needed", () => {
    const unconverted = {
      "packages/core/src/things/legacy.ts": "export const n = (db) => db.prisma.thing.count();\n",
    };
    const allowlist = (paths: string[]) => ({
      "scripts/db-access-allowlist.txt": `# not yet\n${paths.join("\n")}\n`,
    });
    expect(check({ ...clean, ...unconverted }).status).toBe(1);
    expect(
      check({ ...clean, ...unconverted, ...allowlist(["packages/core/src/things/legacy.ts"]) }).status,
    ).toBe(0);
    const stale = check({ ...clean, ...allowlist(["packages/core/src/things/get-thing.ts"]) });
    expect(stale.status).toBe(1);
    expect(stale.output).toContain(
      "get-thing.ts no longer reaches the database outside a repository; remove it",
    );
  });
});
