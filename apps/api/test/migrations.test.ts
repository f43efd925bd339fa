import { applyMigrations, listMigrations, openDatabase } from "@cred/db";
import { afterEach, describe, expect, it } from "vitest";
import { freshPostgresDatabase } from "./harness";

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

describe("migrations", () => {
  const all = listMigrations();

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
});
