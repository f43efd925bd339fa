import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { bootstrap } from "@cred/core";
import {
  applyMigrations,
  diffSchema,
  embeddedDatabaseExists,
  hasPendingMigrations,
  isEmptyMigration,
  listMigrations,
  markMigrationRolledBack,
  openDatabase,
} from "@cred/db";
import { afterEach, describe, expect, it } from "vitest";
import { createServer } from "../src/server";
import { call, freshPostgresDatabase } from "./harness";
import { describeOnEmbedded } from "./skip-reasons";

const MIGRATIONS_DIR = path.resolve(__dirname, "../../../prisma/migrations");
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A fresh, empty database of the kind this run tests (PGlite, or PostgreSQL with TEST_POSTGRES_URL). */
async function emptyDatabase() {
  const adminUrl = process.env.TEST_POSTGRES_URL;
  const pg = adminUrl ? await freshPostgresDatabase(adminUrl) : undefined;
  const db = openDatabase({ databaseUrl: pg?.url, dataDir: ":memory:" });
  cleanups.push(async () => {
    await db.close();
    await pg?.drop();
  });
  return db;
}

const columnsOf = async (db: Awaited<ReturnType<typeof emptyDatabase>>, table: string) =>
  (
    await db.prisma.$queryRawUnsafe<{ column_name: string }[]>(
      `SELECT column_name FROM information_schema.columns WHERE table_name = '${table}'`,
    )
  ).map((r) => r.column_name);

/** Tables, columns, indexes, constraints and enums of the public schema, as PostgreSQL itself describes them. */
async function catalogOf(db: Awaited<ReturnType<typeof emptyDatabase>>) {
  const rows = (sql: string) => db.prisma.$queryRawUnsafe<Record<string, unknown>[]>(sql);
  return {
    columns: await rows(`SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default,
        character_maximum_length, numeric_precision FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name <> '_prisma_migrations' ORDER BY table_name, column_name`),
    indexes: await rows(`SELECT tablename, indexname, indexdef FROM pg_indexes
      WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY tablename, indexname`),
    constraints:
      await rows(`SELECT c.conrelid::regclass::text AS "table", c.conname, pg_get_constraintdef(c.oid) AS def
      FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
      WHERE n.nspname = 'public' AND c.conrelid::regclass::text <> '_prisma_migrations' ORDER BY 1, 2`),
    enums: await rows(`SELECT t.typname, e.enumlabel FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
      ORDER BY t.typname, e.enumsortorder`),
  };
}

describe("migrations", () => {
  const all = listMigrations();

  it("the schema snapshot is prisma/schema.prisma: no schema change is waiting for its migration (pnpm db:diff)", async () => {
    const db = await emptyDatabase();
    const pending = await diffSchema(db.adapterFactory);
    expect(isEmptyMigration(pending), pending).toBe(true);
  });

  it("applying every migration to an empty database yields exactly what schema.prisma describes", async () => {
    const migrated = await emptyDatabase();
    await applyMigrations(migrated.adapterFactory);
    const fromSchema = await emptyDatabase();
    const script = await diffSchema(fromSchema.adapterFactory, { from: null });
    const adapter = await fromSchema.adapterFactory.connect();
    try {
      await adapter.executeScript(script);
    } finally {
      await adapter.dispose();
    }
    const [a, b] = [await catalogOf(migrated), await catalogOf(fromSchema)];
    expect(a.columns.length).toBeGreaterThan(100);
    expect(a).toEqual(b);
  });

  it("has at least two migrations, in order", () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect([...all].sort()).toEqual(all);
  });

  it("builds a fresh database, and a re-run is a no-op", async () => {
    const db = await emptyDatabase();
    expect(await applyMigrations(db.adapterFactory)).toEqual(all);
    expect(await applyMigrations(db.adapterFactory)).toEqual([]);
    const recorded = await db.prisma.$queryRaw<{ migration_name: string }[]>`
      SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name`;
    expect(recorded.map((r) => r.migration_name)).toEqual(all);
    expect(await db.prisma.tenant.count()).toBe(0);
  });

  it("upgrades a database from the previous migration, keeping its data", async () => {
    const db = await emptyDatabase();
    const previous = all.slice(0, -1);
    expect(await applyMigrations(db.adapterFactory, { only: previous })).toEqual(previous);
    await db.prisma.$executeRawUnsafe(
      `INSERT INTO "Tenant" ("id","name") VALUES ('ten_upgrade','Before upgrade')`,
    );
    expect(await applyMigrations(db.adapterFactory)).toEqual(all.slice(-1));
    expect((await db.prisma.tenant.findUniqueOrThrow({ where: { id: "ten_upgrade" } })).name).toBe(
      "Before upgrade",
    );
    expect(await columnsOf(db, "IssuanceTransaction")).toEqual(
      expect.arrayContaining(["offerCipher", "offerHandleHash"]),
    );
  });

  it("moves each status list's bits into 1 KiB chunk rows, all-zero chunks left out", async () => {
    const db = await emptyDatabase();
    const before = all.slice(
      0,
      all.findIndex((m) => m.endsWith("_status_list_chunks")),
    );
    await applyMigrations(db.adapterFactory, { only: before });
    const bytes = new Uint8Array(4096); // 16 384 entries at 2 bits: four chunks
    bytes[5] = 0b0100;
    bytes[2048 + 1023] = 0b0001;
    await db.prisma.$executeRawUnsafe(
      `INSERT INTO "StatusList" ("id","tenantId","environment","issuerId","bits","size","data","updatedAt")
       VALUES ('sl_upgrade','ten','sandbox','iss',2,16384,decode($1,'hex'),now())`,
      Buffer.from(bytes).toString("hex"),
    );
    await applyMigrations(db.adapterFactory);
    const chunks = await db.prisma.statusListChunk.findMany({
      where: { listId: "sl_upgrade" },
      orderBy: { chunk: "asc" },
    });
    expect(chunks.map((c) => c.chunk)).toEqual([0, 2]);
    expect([...new Uint8Array(chunks[0]!.data)]).toEqual([...bytes.subarray(0, 1024)]);
    expect([...new Uint8Array(chunks[1]!.data)]).toEqual([...bytes.subarray(2048, 3072)]);
    expect(await columnsOf(db, "StatusList")).not.toContain("data");
  });

  it("retries a failed migration once its attempt is marked rolled back (pnpm db:resolve)", async () => {
    const db = await emptyDatabase();
    await applyMigrations(db.adapterFactory);
    const last = all.at(-1)!;
    const execute = (sql: string, params: unknown[]) => db.prisma.$executeRawUnsafe(sql, ...params);
    // As a failed attempt leaves it: started, never finished.
    await db.prisma.$executeRawUnsafe(
      `UPDATE _prisma_migrations SET finished_at = NULL WHERE migration_name = $1`,
      last,
    );
    expect(await hasPendingMigrations(db.adapterFactory)).toBe(true);
    expect(await markMigrationRolledBack(execute, last)).toBe(1);
    expect(await markMigrationRolledBack(execute, last)).toBe(0);
    expect(await markMigrationRolledBack(execute, all[0]!)).toBe(0); // finished ones are left alone
    const rows = await db.prisma.$queryRawUnsafe<{ rolled_back_at: Date | null }[]>(
      `SELECT rolled_back_at FROM _prisma_migrations WHERE migration_name = $1`,
      last,
    );
    expect(rows[0]!.rolled_back_at).not.toBeNull();
  });

  it("applies a migration whole or not at all: a failing statement leaves none of the others in place", async () => {
    const db = await emptyDatabase();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "migrations-"));
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    fs.cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    const broken = path.join(dir, "99990101000000_broken");
    fs.mkdirSync(broken);
    const write = (sql: string) => fs.writeFileSync(path.join(broken, "migration.sql"), sql);
    // A semicolon inside a string or comment is part of its statement; the failing statement comes last.
    write(`-- adds a probe; then fails
CREATE TABLE "Probe" ("note" TEXT DEFAULT 'a;b');
ALTER TABLE "Issuer" ADD COLUMN "probe" TEXT;
SELECT 1 / 0;
`);
    const failed = await applyMigrations(db.adapterFactory, { dir }).catch((error: Error) => error);
    expect(String(failed)).toMatch(/division by zero/);
    expect(await columnsOf(db, "Probe")).toEqual([]);
    expect(await columnsOf(db, "Issuer")).not.toContain("probe");

    // Repaired and marked rolled back, it applies in full.
    write(
      `CREATE TABLE "Probe" ("note" TEXT DEFAULT 'a;b');\nALTER TABLE "Issuer" ADD COLUMN "probe" TEXT;\n`,
    );
    const execute = (sql: string, params: unknown[]) => db.prisma.$executeRawUnsafe(sql, ...params);
    expect(await markMigrationRolledBack(execute, "99990101000000_broken")).toBe(1);
    expect(await applyMigrations(db.adapterFactory, { dir })).toEqual(["99990101000000_broken"]);
    expect(await columnsOf(db, "Probe")).toEqual(["note"]);
    expect(await columnsOf(db, "Issuer")).toContain("probe");
  });

  it("bootstraps a new database once when several processes start on it at the same moment", async () => {
    const db = await emptyDatabase();
    await applyMigrations(db.adapterFactory);
    const results = await Promise.all([bootstrap(db.root), bootstrap(db.root), bootstrap(db.root)]);
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(await db.prisma.tenant.count()).toBe(1);
    expect(await db.prisma.staffUser.count()).toBe(1);
  });

  it("moves a webhook secret still in its rotation overlap into previousSecrets, and not an ended one", async () => {
    const db = await emptyDatabase();
    const before = all.slice(
      0,
      all.findIndex((m) => m.endsWith("_webhook_previous_secrets")),
    );
    await applyMigrations(db.adapterFactory, { only: before });
    const insert = (id: string, expiresAt: string | null) =>
      db.prisma.$executeRawUnsafe(
        `INSERT INTO "WebhookSubscription" ("id","tenantId","environment","url","events","status","secretCipher",
           "previousSecretCipher","previousSecretExpiresAt","updatedAt")
         VALUES ($1,'ten','sandbox','https://example.com/h','{}','active','cur',
           ${expiresAt ? "'prev'" : "NULL"}, $2::timestamp(3), now())`,
        id,
        expiresAt,
      );
    await insert("wh_overlap", "2030-01-02T03:04:05.678Z");
    await insert("wh_ended", "2020-01-02T03:04:05.678Z");
    await insert("wh_none", null);
    await applyMigrations(db.adapterFactory);
    const rows = await db.prisma.webhookSubscription.findMany({ orderBy: { id: "asc" } });
    expect(rows.map((r) => [r.id, r.previousSecrets])).toEqual([
      ["wh_ended", []],
      ["wh_none", []],
      ["wh_overlap", [{ cipher: "prev", expiresAt: "2030-01-02T03:04:05.678Z" }]],
    ]);
  });

  describeOnEmbedded("at server start (embedded data folder)", () => {
    const startOn = (dataDir: string, masterKey = randomBytes(32)) =>
      createServer({
        dataDir,
        masterKey,
        publicBaseUrl: "http://localhost",
        developmentMode: true,
        logLevel: "silent",
        rateLimit: { points: 1000, durationSeconds: 1 },
      });
    const tempDir = () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "migrate-start-"));
      cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
      return dir;
    };
    const recorded = async (server: Awaited<ReturnType<typeof startOn>>) =>
      (
        await server.database.root.sql.query<{ migration_name: string }>(
          "SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name",
        )
      ).rows.map((r) => r.migration_name);

    it("refuses to start with a master key that does not open the database's sealed keys", async () => {
      const dir = tempDir();
      const key = randomBytes(32);
      const first = await startOn(dir, key);
      await first.app.listen({ host: "127.0.0.1", port: 0 });
      const boot = (await bootstrap(first.database.root))!;
      const baseUrl = `http://127.0.0.1:${(first.app.server.address() as { port: number }).port}`;
      const org = await call({ baseUrl }, "POST", "/management/organisations", {
        key: boot.apiKey,
        body: { reference: "mk-org", displayName: "Org" },
      });
      expect(org.status).toBe(201);
      const issuer = await call({ baseUrl }, "POST", "/management/issuers", {
        key: boot.apiKey,
        body: { organisationReference: "mk-org", displayName: "Issuer" },
      });
      expect(issuer.status).toBe(201);
      await first.close();
      await expect(startOn(dir, randomBytes(32))).rejects.toThrow(/MASTER_KEY does not open the keys sealed/);
      const again = await startOn(dir, key); // the right key still opens it (and the lock was released)
      await again.close();
    }, 120_000); // three embedded databases opened one after another: it took over 30 s once at load ~16

    it("creates and migrates a new database in a child process, then opens it", async () => {
      const dir = tempDir();
      expect(embeddedDatabaseExists(dir)).toBe(false);
      const server = await startOn(dir);
      try {
        expect(await recorded(server)).toEqual(all);
        expect(embeddedDatabaseExists(dir)).toBe(true);
      } finally {
        await server.close();
      }
    });

    it("upgrades an existing database left one migration behind, keeping its data", async () => {
      const dir = tempDir();
      const old = openDatabase({ dataDir: dir });
      await applyMigrations(old.adapterFactory, { only: all.slice(0, -1) });
      await old.root.sql.query(`INSERT INTO "Tenant" ("id","name") VALUES ('ten_kept','Kept')`);
      await old.close();
      const server = await startOn(dir);
      try {
        expect(await recorded(server)).toEqual(all);
        const { rows } = await server.database.root.sql.query<{ name: string }>(
          `SELECT "name" FROM "Tenant" WHERE "id" = 'ten_kept'`,
        );
        expect(rows[0]?.name).toBe("Kept");
      } finally {
        await server.close();
      }
    });
  });
});
