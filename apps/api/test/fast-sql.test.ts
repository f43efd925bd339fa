import { applyMigrations, openDatabase, startEmbeddedMaintenance } from "@cred/db";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPostgresDatabase } from "./harness";
import { itOnEmbedded, itOnPostgres } from "./skip-reasons";

// The driver fast path and Prisma must agree on every value, timestamps included, in any time zone.
let db: ReturnType<typeof openDatabase>;
let drop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  const adminUrl = process.env.TEST_POSTGRES_URL;
  const pg = adminUrl ? await freshPostgresDatabase(adminUrl) : undefined;
  drop = pg?.drop;
  db = openDatabase({ databaseUrl: pg?.url, dataDir: ":memory:" });
  await applyMigrations(db.adapterFactory);
});
afterAll(async () => {
  await db.close();
  await drop?.();
});

describe("fast SQL path", () => {
  it("round-trips timestamps, json and numbers exactly as Prisma sees them", async () => {
    const at = new Date("2026-11-22T03:40:00.123Z");
    await db.root.sql.query(
      `INSERT INTO "OutboxEvent" ("id","tenantId","environment","type","payload","occurredAt") VALUES ($1,$2,$3,$4,$5::jsonb,$6)`,
      ["evt_fast", "t", "sandbox", "x", JSON.stringify({ n: 1, s: "é" }), at],
    );
    const viaPrisma = await db.prisma.outboxEvent.findUniqueOrThrow({ where: { id: "evt_fast" } });
    expect(viaPrisma.occurredAt.toISOString()).toBe(at.toISOString());
    expect(viaPrisma.payload).toEqual({ n: 1, s: "é" });

    await db.prisma.outboxEvent.create({
      data: {
        id: "evt_prisma",
        tenantId: "t",
        environment: "sandbox",
        type: "y",
        payload: { k: [1] },
        occurredAt: at,
      },
    });
    const { rows } = await db.root.sql.query<{ occurredAt: Date; payload: unknown }>(
      `SELECT "occurredAt", "payload" FROM "OutboxEvent" WHERE "id" = $1`,
      ["evt_prisma"],
    );
    expect(rows[0]!.occurredAt).toBeInstanceOf(Date);
    expect(rows[0]!.occurredAt.toISOString()).toBe(at.toISOString());
    expect(rows[0]!.payload).toEqual({ k: [1] });
  });

  it("reports affected rows", async () => {
    const { affected } = await db.root.sql.query(`DELETE FROM "OutboxEvent" WHERE "type" IN ('x','y')`);
    expect(affected).toBe(2);
  });

  it("reuses a statement after it failed (unique violation, bad parameter) and keeps working", async () => {
    const insert = `INSERT INTO "OutboxEvent" ("id","tenantId","environment","type","payload","occurredAt")
                    VALUES ($1,'t','sandbox','z','{}'::jsonb,$2::timestamp(3)) RETURNING "id"`;
    const at = new Date();
    expect((await db.root.sql.query(insert, ["evt_dup", at])).affected).toBe(1);
    const duplicate = await db.root.sql.query(insert, ["evt_dup", at]).catch((e: unknown) => e);
    expect((duplicate as { code?: string }).code).toBe("23505");
    const badParam = await db.root.sql.query(insert, ["evt_bad", "not a time"]).catch((e: unknown) => e);
    expect(badParam).toBeInstanceOf(Error);
    expect((await db.root.sql.query(insert, ["evt_after", at])).affected).toBe(1);
    const bad = await db.root.sql.query("SELECT nonsense FROM nowhere").catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(Error);
    const { rows } = await db.root.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "OutboxEvent" WHERE "type" = 'z'`,
    );
    expect(rows[0]!.n).toBe(2);
  });

  it("runs concurrent statements and interleaves correctly with an interactive transaction", async () => {
    const at = new Date();
    await Promise.all([
      db.prisma.$transaction(async (tx) => {
        await tx.outboxEvent.create({
          data: {
            id: "evt_in_tx",
            tenantId: "t",
            environment: "sandbox",
            type: "w",
            payload: {},
            occurredAt: at,
          },
        });
        await new Promise((r) => setTimeout(r, 20));
      }),
      ...Array.from({ length: 10 }, (_, i) =>
        db.root.sql.query(
          `INSERT INTO "OutboxEvent" ("id","tenantId","environment","type","payload","occurredAt")
           VALUES ($1,'t','sandbox','w','{}'::jsonb,$2::timestamp(3))`,
          [`evt_c${i}`, at],
        ),
      ),
    ]);
    const { rows } = await db.root.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "OutboxEvent" WHERE "type" = 'w'`,
    );
    expect(rows[0]!.n).toBe(11);
  });

  itOnPostgres("survives the server ending its idle connections", async () => {
    const { rows: names } = await db.root.sql.query<{ name: string }>("SELECT current_database() AS name");
    const url = new URL(process.env.TEST_POSTGRES_URL!);
    url.pathname = `/${names[0]!.name}`;
    // A database object used only through the fast path: no Prisma adapter has touched its pool.
    const own = openDatabase({ databaseUrl: url.toString(), dataDir: ":memory:" });
    const admin = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
    try {
      await own.root.sql.query("SELECT 1");
      await admin.connect();
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
        [names[0]!.name],
      );
      await new Promise((r) => setTimeout(r, 200));
      const { rows } = await own.root.sql.query<{ one: number }>("SELECT 1 AS one");
      expect(rows[0]!.one).toBe(1);
      expect((await db.root.sql.query<{ one: number }>("SELECT 1 AS one")).rows[0]!.one).toBe(1);
    } finally {
      await admin.end();
      await own.close();
    }
  });

  itOnEmbedded("embedded maintenance checkpoints and vacuums (PGlite does neither by itself)", async () => {
    expect(db.maintenance).toBeDefined();
    const at = new Date();
    for (let i = 0; i < 50; i++) {
      await db.root.sql.query(
        `INSERT INTO "OutboxEvent" ("id","tenantId","environment","type","payload","occurredAt")
           VALUES ($1,'t','sandbox','m','{}'::jsonb,$2::timestamp(3))`,
        [`evt_m${i}`, at],
      );
    }
    await db.root.sql.query(`DELETE FROM "OutboxEvent" WHERE "type" = 'm'`);
    const redo = async () =>
      (await db.root.sql.query<{ redo_lsn: string }>("SELECT redo_lsn::text FROM pg_control_checkpoint()"))
        .rows[0]!.redo_lsn;
    const before = await redo();
    expect(await db.maintenance!.run({ vacuum: true })).toEqual({ checkpoint: true, vacuum: true });
    expect(await redo()).not.toBe(before);
    const { rows } = await db.root.sql.query<{ last_vacuum: Date | null }>(
      `SELECT last_vacuum FROM pg_stat_user_tables WHERE relname = 'OutboxEvent'`,
    );
    expect(rows[0]!.last_vacuum).not.toBeNull();
  });

  itOnEmbedded(
    "embedded maintenance checkpoints once the WAL since the last checkpoint reaches its limit",
    async () => {
      const exec = (sql: string) => db.root.sql.query(sql);
      const redo = async () =>
        (await db.root.sql.query<{ redo_lsn: string }>("SELECT redo_lsn::text FROM pg_control_checkpoint()"))
          .rows[0]!.redo_lsn;
      const write = () =>
        db.root.sql.query(
          `INSERT INTO "OutboxEvent" ("id","tenantId","environment","type","payload","occurredAt")
           VALUES ($1,'t','sandbox','w','{}'::jsonb,$2::timestamp(3))`,
          [`evt_w${Math.random()}`, new Date()],
        );
      const roomy = startEmbeddedMaintenance(exec, { walLimitBytes: 1024 * 1024 * 1024 });
      const tight = startEmbeddedMaintenance(exec, { walLimitBytes: 1 });
      try {
        await write();
        const before = await redo();
        expect(await roomy.checkpointIfWalAbove()).toBe(false);
        expect(await redo()).toBe(before);
        expect(await tight.checkpointIfWalAbove()).toBe(true);
        expect(await redo()).not.toBe(before);
      } finally {
        roomy.stop();
        tight.stop();
      }
    },
  );
});
