import fs from "node:fs";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { type EmbeddedMaintenance, startEmbeddedMaintenance } from "./embedded-maintenance";
import { startEmbeddedThread } from "./embedded-thread/embedded-thread";
import { type FastSql, pgFastSql } from "./fast-sql";
import { PrismaClient } from "./generated/prisma/client";

export type DatabaseKind = "embedded" | "postgres";

export interface DatabaseOptions {
  /** PostgreSQL connection string; when absent the embedded PGlite database is used. */
  databaseUrl?: string;
  /** Folder for the embedded database; `":memory:"` keeps it in memory (tests). */
  dataDir: string;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
  /** Embedded only: the buffer pool (`shared_buffers`) in MB; 16 unless set. */
  sharedBuffersMb?: number;
  /** Embedded only: where a failed periodic CHECKPOINT or VACUUM, or a crash of the database thread, is reported. */
  onMaintenanceError?: (error: unknown) => void;
}

export interface Database {
  kind: DatabaseKind;
  prisma: PrismaClient;
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  /** Raw pg pool when on a PostgreSQL server (the rate limiter's shared store). */
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
 * anyway, so a small pool costs little speed: 16 MB measured no slower than 32 MB in alternating bench
 * runs and saved ~17 MB of RSS. WebAssembly memory never shrinks, so maintenance_work_mem (64 MB by
 * default, taken by index builds and VACUUM) is kept small too.
 */
const embeddedSettings = (sharedBuffersMb = 16) => [
  `shared_buffers=${sharedBuffersMb}MB`,
  "maintenance_work_mem=16MB",
];

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
  // PGlite is one session; its connections are virtual (embedded-thread/worker.mjs serialises them), so a
  // few are enough for an interactive transaction not to hold up the pool's other statements.
  if (options.dataDir !== ":memory:") fs.mkdirSync(embeddedDir(options.dataDir), { recursive: true });
  const thread = startEmbeddedThread({
    dataDir: options.dataDir === ":memory:" ? undefined : embeddedDir(options.dataDir),
    startParams: embeddedSettings(options.sharedBuffersMb).flatMap((s) => ["-c", s]),
    onError: options.onMaintenanceError,
  });
  const pool = new pg.Pool({ max: 32, allowExitOnIdle: true, stream: () => thread.socket() });
  pool.on("error", () => {});
  const adapterFactory = new PrismaPg(pool);
  const prisma = new PrismaClient({ adapter: adapterFactory });
  const fast = pgFastSql(pool, pg.types);
  const maintenance = startEmbeddedMaintenance((sql) => fast.query(sql), {
    onError: options.onMaintenanceError,
  });
  return {
    kind: "embedded",
    prisma,
    adapterFactory,
    fast,
    maintenance,
    async close() {
      maintenance.stop();
      await prisma.$disconnect();
      await pool.end();
      await thread.close();
    },
  };
}
