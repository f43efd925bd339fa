import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { type EmbeddedMaintenance, startEmbeddedMaintenance } from "./embedded-maintenance";
import { type FastSql, pgFastSql, pgliteFastSql } from "./fast-sql";
import { PrismaClient } from "./generated/prisma/client";

export type DatabaseKind = "embedded" | "postgres";

export interface DatabaseOptions {
  /** PostgreSQL connection string; when absent the embedded PGlite database is used. */
  databaseUrl?: string;
  /** Folder for the embedded database; `":memory:"` keeps it in memory (tests). */
  dataDir: string;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
  /**
   * Embedded only: PGlite `relaxedDurability` (do not await its filesystem sync). In Node that sync is a
   * no-op and PGlite has no fsync at all: a commit survives a process crash (its WAL write completes before
   * the statement resolves) but not an OS crash or power loss, with or without this. See docs/performance.md.
   */
  relaxedDurability?: boolean;
  /** Embedded only: where a failed periodic CHECKPOINT or VACUUM is reported. */
  onMaintenanceError?: (error: unknown) => void;
}

export interface Database {
  kind: DatabaseKind;
  prisma: PrismaClient;
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  /** Raw pg pool when on PostgreSQL (rate limiter store, SKIP LOCKED claims). */
  pool?: pg.Pool;
  /** Hot-path single statements straight to the driver (never inside an interactive transaction). */
  fast: FastSql;
  /** Embedded only: the periodic CHECKPOINT and VACUUM PGlite does not do itself (embedded-maintenance.ts). */
  maintenance?: EmbeddedMaintenance;
  close(): Promise<void>;
}

/**
 * Embedded PostgreSQL settings (docs/performance.md). PGlite's default shared_buffers (128 MB) lives in
 * its WebAssembly heap and is most of the process's memory; the operating system caches the data files
 * anyway, so 32 MB costs little speed. WebAssembly memory never shrinks, so maintenance_work_mem (64 MB
 * by default, taken by index builds and VACUUM) is kept small too.
 */
const EMBEDDED_SETTINGS = ["shared_buffers=32MB", "maintenance_work_mem=16MB"];

const embeddedDir = (dataDir: string) => path.resolve(dataDir, "pgdata");

/** Whether an embedded database has been created in `dataDir` (false for `":memory:"`). */
export function embeddedDatabaseExists(dataDir: string): boolean {
  return dataDir !== ":memory:" && fs.existsSync(path.join(embeddedDir(dataDir), "PG_VERSION"));
}

export function openDatabase(options: DatabaseOptions): Database {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
    // An idle connection ended by the server (restart, failover, an administrator): pg drops it from the
    // pool and the next query opens a fresh one. Without a listener the error would crash the process.
    pool.on("error", () => {});
    const adapterFactory = new PrismaPg(pool);
    const prisma = new PrismaClient({ adapter: adapterFactory });
    return {
      kind: "postgres",
      prisma,
      adapterFactory,
      pool,
      fast: pgFastSql(pool, pg.types),
      async close() {
        await prisma.$disconnect();
        await pool.end();
      },
    };
  }
  let pglite: PGlite;
  if (options.dataDir === ":memory:") {
    pglite = new PGlite();
  } else {
    const dir = embeddedDir(options.dataDir);
    fs.mkdirSync(dir, { recursive: true });
    pglite = new PGlite(dir, {
      relaxedDurability: options.relaxedDurability ?? true,
      startParams: [...PGlite.defaultStartParams, ...EMBEDDED_SETTINGS.flatMap((s) => ["-c", s])],
    });
  }
  const adapterFactory = new PrismaPGlite(pglite);
  const prisma = new PrismaClient({ adapter: adapterFactory });
  const maintenance = startEmbeddedMaintenance(pglite, { onError: options.onMaintenanceError });
  return {
    kind: "embedded",
    prisma,
    adapterFactory,
    fast: pgliteFastSql(pglite),
    maintenance,
    async close() {
      maintenance.stop();
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}
