import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import * as engineBindings from "@prisma/schema-engine-wasm/schema_engine_bg";

const here = path.dirname(fileURLToPath(import.meta.url));
export const PRISMA_DIR = path.resolve(here, "../../../prisma");
export const SCHEMA_PATH = path.join(PRISMA_DIR, "schema.prisma");
export const MIGRATIONS_DIR = path.join(PRISMA_DIR, "migrations");
/** The schema the migrations produce: `pnpm db:diff` diffs from it and rewrites it with each migration. */
export const SNAPSHOT_PATH = path.join(MIGRATIONS_DIR, "schema.snapshot.prisma");

const filters = { externalTables: [], externalEnums: [] };
let wasmReady: Promise<void> | undefined;

function loadWasm(): Promise<void> {
  wasmReady ??= (async () => {
    const require = createRequire(import.meta.url);
    const bindingsPath = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
    const wasmPath = path.join(path.dirname(bindingsPath), "schema_engine_bg.wasm");
    const { instance } = await (globalThis as any).WebAssembly.instantiate(fs.readFileSync(wasmPath), {
      "./schema_engine_bg.js": engineBindings as any,
    });
    (engineBindings as any).__wbg_set_wasm(instance.exports);
    (instance.exports as any).__wbindgen_start?.();
  })();
  return wasmReady;
}

async function openEngine(adapterFactory: SqlMigrationAwareDriverAdapterFactory, schemaText: string) {
  await loadWasm();
  return (engineBindings as any).SchemaEngine.new(
    { datamodels: [[SCHEMA_PATH, schemaText]] },
    () => {},
    bindMigrationAwareSqlAdapterFactory(adapterFactory),
  );
}

export function listMigrations(dir = MIGRATIONS_DIR): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, "migration.sql")))
    .map((e) => e.name)
    .sort();
}

/** Names recorded as applied, or null when the database has no migrations table yet. */
async function recordedMigrations(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
): Promise<Set<string> | null> {
  const adapter = await adapterFactory.connect();
  try {
    const result = await adapter.queryRaw({
      sql: `SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
      args: [],
      argTypes: [],
    });
    return new Set(result.rows.map((row) => String(row[0])));
  } catch {
    return null;
  } finally {
    await adapter.dispose();
  }
}

/** Whether any migration in `prisma/migrations` is not recorded as applied (one cheap query). */
export async function hasPendingMigrations(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  dir = MIGRATIONS_DIR,
): Promise<boolean> {
  const recorded = await recordedMigrations(adapterFactory);
  return !recorded || listMigrations(dir).some((name) => !recorded.has(name));
}

/** Applies pending migrations from `prisma/migrations`; returns the names applied (empty when up to date). */
export async function applyMigrations(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  options: { dir?: string; only?: string[] } = {},
): Promise<string[]> {
  const dir = options.dir ?? MIGRATIONS_DIR;
  const names = options.only ?? listMigrations(dir);
  // The migration engine is a large WebAssembly module: load it only when something is pending.
  const recorded = await recordedMigrations(adapterFactory);
  if (recorded && names.every((name) => recorded.has(name))) return [];
  const engine = await openEngine(adapterFactory, fs.readFileSync(SCHEMA_PATH, "utf8"));
  const lockPath = path.join(dir, "migration_lock.toml");
  const result = await engine.applyMigrations({
    filters,
    migrationsList: {
      baseDir: dir,
      lockfile: {
        path: "migration_lock.toml",
        content: fs.existsSync(lockPath) ? fs.readFileSync(lockPath, "utf8") : null,
      },
      shadowDbInitScript: "",
      migrationDirectories: names.map((name) => ({
        path: name,
        migrationFile: {
          path: "migration.sql",
          content: { tag: "ok", value: fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8") },
        },
      })),
    },
  });
  return result.appliedMigrationNames as string[];
}

/** Names of migrations recorded as finished in `_prisma_migrations`. */
export async function appliedMigrationNames(query: (sql: string) => Promise<{ migration_name: string }[]>) {
  const rows = await query(
    "SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name",
  );
  return rows.map((r) => r.migration_name);
}

/**
 * After a failed migration was undone or finished by hand (docs/operations.md): marks its unfinished
 * attempt rolled back, so the next start applies it again (what `prisma migrate resolve --rolled-back`
 * does, whose native engine does not run here). Returns how many attempts it marked (0: none failed).
 */
export async function markMigrationRolledBack(
  execute: (sql: string, params: unknown[]) => Promise<number>,
  name: string,
): Promise<number> {
  return execute(
    `UPDATE _prisma_migrations SET rolled_back_at = now()
      WHERE migration_name = $1 AND finished_at IS NULL AND rolled_back_at IS NULL`,
    [name],
  );
}

/**
 * SQL that takes a database from the schema `from` (default: the snapshot of what the migrations produce,
 * `prisma/migrations/schema.snapshot.prisma`; an absent file means an empty database) to the schema `to`
 * (default: `prisma/schema.prisma`). Diffing two datamodels needs no shadow database.
 */
export async function diffSchema(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  options: { from?: string | null; to?: string } = {},
): Promise<string> {
  const to = options.to ?? fs.readFileSync(SCHEMA_PATH, "utf8");
  const from =
    options.from !== undefined
      ? options.from
      : fs.existsSync(SNAPSHOT_PATH)
        ? fs.readFileSync(SNAPSHOT_PATH, "utf8")
        : null;
  const engine = await openEngine(adapterFactory, to);
  const result = await engine.diff({
    from:
      from === null
        ? { tag: "empty" }
        : { tag: "schemaDatamodel", files: [{ path: SNAPSHOT_PATH, content: from }] },
    to: { tag: "schemaDatamodel", files: [{ path: SCHEMA_PATH, content: to }] },
    script: true,
    exitCode: null,
    filters,
  });
  return result?.stdout ?? "";
}

/** Whether a diff script changes nothing (the engine writes a comment saying so). */
export const isEmptyMigration = (sql: string) => !sql.trim() || /This is an empty migration/.test(sql);
