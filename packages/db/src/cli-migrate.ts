// `pnpm db:migrate` applies pending migrations; `pnpm db:diff <name>` authors a new one from the schema;
// `pnpm db:resolve <name>` marks a failed migration's attempt rolled back once it was repaired by hand.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openDatabase } from "./client";
import {
  applyMigrations,
  diffSchema,
  isEmptyMigration,
  MIGRATIONS_DIR,
  markMigrationRolledBack,
  SCHEMA_PATH,
  SNAPSHOT_PATH,
} from "./migrate";

const [command, name] = process.argv.slice(2);
// A relative DATA_DIR means the same folder as for the API (apps/api/src/env.ts): under the repository root.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
// Migrations need a session (the engine's advisory lock): PostgreSQL itself, not a transaction pooler.
const db = openDatabase({
  databaseUrl: process.env.DIRECT_DATABASE_URL || process.env.DATABASE_URL || undefined,
  dataDir: path.resolve(repoRoot, process.env.DATA_DIR || ".data"),
});
try {
  if (command === "deploy") {
    const applied = await applyMigrations(db.adapterFactory);
    console.log(applied.length ? `Applied: ${applied.join(", ")}` : "Database is up to date.");
  } else if (command === "resolve") {
    if (!name) throw new Error("usage: pnpm db:resolve <migration name>");
    const marked = await markMigrationRolledBack(
      (sql, params) => db.prisma.$executeRawUnsafe(sql, ...params),
      name,
    );
    console.log(
      marked
        ? `Marked the failed attempt of ${name} rolled back; the next start applies it again.`
        : `No failed attempt of ${name} is recorded; nothing changed.`,
    );
  } else if (command === "diff") {
    if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error("usage: pnpm db:diff <snake_case_name>");
    const sql = await diffSchema(db.adapterFactory);
    if (isEmptyMigration(sql)) {
      console.log("Schema unchanged: no migration written.");
    } else {
      const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
      const dir = path.join(MIGRATIONS_DIR, `${stamp}_${name}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, "migration.sql"), sql);
      fs.copyFileSync(SCHEMA_PATH, SNAPSHOT_PATH);
      const lock = path.join(MIGRATIONS_DIR, "migration_lock.toml");
      if (!fs.existsSync(lock)) fs.writeFileSync(lock, 'provider = "postgresql"\n');
      console.log(`Wrote ${path.relative(process.cwd(), dir)}/migration.sql`);
    }
  } else {
    throw new Error("usage: migrate deploy | diff <name> | resolve <name>");
  }
} catch (error) {
  // The message says what failed; the engine's WebAssembly stack would only bury it.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  await db.close().catch(() => {});
  process.exit(1);
} finally {
  await db.close();
}
// The migration engine leaves timers behind; the command is over once its work is.
process.exit(0);
