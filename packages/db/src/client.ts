import fs from "node:fs";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { atomicScripts } from "./atomic-scripts";
import { lockEmbeddedDatabase } from "./embedded-lock";
import { type EmbeddedMaintenance, startEmbeddedMaintenance } from "./embedded-maintenance";
import { startEmbeddedThread } from "./embedded-thread/embedded-thread";
import { pgFastSql } from "./fast-sql";
import { PrismaClient } from "./generated/prisma/client";
import { type StatementObserver, timedClientClass } from "./timed-client";
import { poolerMode, unnamedStatementsClientClass } from "./transaction-pooler";
import { rootUnitOfWork, type UnitOfWork } from "./unit-of-work";

export type DatabaseKind = "embedded" | "postgres";

export interface DatabaseOptions {
  /**
   * PostgreSQL connection string; when absent the embedded PGlite database is used. `?pgbouncer=true`
   * says it goes through a pooler in transaction mode (transaction-pooler.ts): statements are then sent
   * unnamed, and LISTEN needs `directDatabaseUrl`.
   */
  databaseUrl?: string;
  /**
   * A connection straight to PostgreSQL, for what needs a session of its own (LISTEN): used when
   * `databaseUrl` goes through a transaction pooler. Unset there, `sessionPool` is absent.
   */
  directDatabaseUrl?: string;
  /** Folder for the embedded database; `":memory:"` keeps it in memory (tests). */
  dataDir: string;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
  /** Embedded only: the buffer pool (`shared_buffers`) in MB; 16 unless set. */
  sharedBuffersMb?: number;
  /** Embedded only: where a failed periodic CHECKPOINT or VACUUM, or a crash of the database thread, is reported. */
  onMaintenanceError?: (error: unknown) => void;
  /** Told every statement's duration in seconds (the server's metrics); unset, nothing is timed. */
  onStatement?: StatementObserver;
}

/** The pool's connections right now (pg's counters), for metrics. */
export interface PoolStats {
  /** Connections open, idle or in use. */
  total: number;
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
  /** The most connections the pool opens. */
  max: number;
}

export interface Database {
  kind: DatabaseKind;
  prisma: PrismaClient;
  /** For the schema engine: migrations (each applied whole or not at all, atomic-scripts.ts) and diffs. */
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  /** Raw pg pool when on a PostgreSQL server (the rate limiter's shared store). */
  pool?: pg.Pool;
  /**
   * Connections that are sessions of their own (LISTEN): `pool` itself on a direct connection; a small
   * pool on `directDatabaseUrl` behind a transaction pooler; absent behind one without it.
   */
  sessionPool?: pg.Pool;
  /** The root unit of work: what use-cases and repositories get (unit-of-work.ts). */
  root: UnitOfWork;
  /** Embedded only: the periodic CHECKPOINT and VACUUM PGlite does not do itself (embedded-maintenance.ts). */
  maintenance?: EmbeddedMaintenance;
  /** The pool's counters: a PostgreSQL server's connections, or the embedded thread's virtual ones. */
  poolStats(): PoolStats;
  close(): Promise<void>;
}

/**
 * Embedded PostgreSQL settings (docs/adr/0006-embedded-database-settings.md). PGlite's default shared_buffers (128 MB) lives in
 * its WebAssembly heap and is most of the process's memory; the operating system caches the data files
 * anyway, so a small pool costs little speed: 16 MB measured no slower than 32 MB in alternating bench
 * runs and saved ~17 MB of RSS. WebAssembly memory never shrinks, so maintenance_work_mem (64 MB by
 * default, taken by index builds and VACUUM) is kept small too. wal_init_zero=off: a new 16 MB WAL
 * segment was written full of zeros through PGlite's file layer, holding the one session for 35–60 ms
 * every ~2.5 s at full load (the statement that crossed into it stalled every queued request); without
 * the zero fill, the file is only sized. WAL records are checksummed, so recovery still finds its end.
 */
const embeddedSettings = (sharedBuffersMb = 16) => [
  `shared_buffers=${sharedBuffersMb}MB`,
  "maintenance_work_mem=16MB",
  "wal_init_zero=off",
];

const embeddedDir = (dataDir: string) => path.resolve(dataDir, "pgdata");

/** Whether an embedded database has been created in `dataDir` (false for `":memory:"`). */
export function embeddedDatabaseExists(dataDir: string): boolean {
  return dataDir !== ":memory:" && fs.existsSync(path.join(embeddedDir(dataDir), "PG_VERSION"));
}

/**
 * Prisma and the fast path over a pg pool: the same for a PostgreSQL server and for the embedded database's
 * thread. An idle connection ended by the server (restart, failover, an administrator) is dropped by pg and
 * the next query opens a fresh one; without an error listener it would crash the process.
 */
function poolStatsOf(pool: pg.Pool, max: number): () => PoolStats {
  return () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max });
}

function overPool(pool: pg.Pool) {
  pool.on("error", () => {});
  const prismaAdapter = new PrismaPg(pool);
  const prismaClient = new PrismaClient({ adapter: prismaAdapter });
  return {
    adapterFactory: atomicScripts(prismaAdapter, pool),
    prisma: prismaClient,
    root: rootUnitOfWork(prismaClient, pgFastSql(pool, pg.types)),
  };
}

/** The embedded database's virtual connections (see openDatabase). */
const EMBEDDED_CONNECTIONS = 32;

export function openDatabase(options: DatabaseOptions): Database {
  if (options.databaseUrl) {
    // A server that does not answer fails a request (and /readyz) within 10 s instead of holding it.
    const max = options.poolSize ?? 10;
    const { transactionPooler, connectionString } = poolerMode(options.databaseUrl);
    const Base = transactionPooler ? unnamedStatementsClientClass() : pg.Client;
    const pool = new pg.Pool({
      connectionString,
      max,
      connectionTimeoutMillis: 10_000,
      Client: options.onStatement ? timedClientClass(options.onStatement, Base) : Base,
    });
    // LISTEN holds a connection for good: one of its own beside the pooler (two, so a reconnect never waits).
    const directPool =
      transactionPooler && options.directDatabaseUrl
        ? new pg.Pool({
            connectionString: poolerMode(options.directDatabaseUrl).connectionString,
            max: 2,
            connectionTimeoutMillis: 10_000,
          })
        : undefined;
    directPool?.on("error", () => {});
    const { prisma, adapterFactory, root } = overPool(pool);
    return {
      kind: "postgres",
      prisma,
      adapterFactory,
      pool,
      sessionPool: transactionPooler ? directPool : pool,
      root,
      poolStats: poolStatsOf(pool, max),
      async close() {
        await prisma.$disconnect();
        await pool.end();
        await directPool?.end();
      },
    };
  }
  const dir = options.dataDir === ":memory:" ? undefined : embeddedDir(options.dataDir);
  if (dir) fs.mkdirSync(dir, { recursive: true });
  const unlock = dir ? lockEmbeddedDatabase(dir) : () => {};
  const thread = startEmbeddedThread({
    dataDir: dir,
    startParams: embeddedSettings(options.sharedBuffersMb).flatMap((s) => ["-c", s]),
    onError: options.onMaintenanceError,
  });
  // The connections are virtual: the thread runs their statements one at a time on PGlite's one session
  // (embedded-thread/worker.mjs). 32 of them keep that thread fed while the request thread is busy; with
  // 8, replies waited for the request thread and the database thread idled (docs/adr/0005-embedded-database-thread.md).
  const pool = new pg.Pool({
    max: EMBEDDED_CONNECTIONS,
    allowExitOnIdle: true,
    stream: () => thread.socket(),
    ...(options.onStatement && { Client: timedClientClass(options.onStatement) }),
  });
  const { prisma, adapterFactory, root } = overPool(pool);
  const maintenance = startEmbeddedMaintenance((sql) => root.sql.query(sql), {
    onError: options.onMaintenanceError,
  });
  return {
    kind: "embedded",
    prisma,
    adapterFactory,
    root,
    maintenance,
    poolStats: poolStatsOf(pool, EMBEDDED_CONNECTIONS),
    async close() {
      maintenance.stop();
      await prisma.$disconnect();
      await pool.end();
      await thread.close();
      unlock();
    },
  };
}
