export {
  type Database,
  type DatabaseKind,
  type DatabaseOptions,
  embeddedDatabaseExists,
  openDatabase,
  type PoolStats,
} from "./client";
export { EmbeddedDatabaseInUse } from "./embedded-lock";
export { type EmbeddedMaintenance, startEmbeddedMaintenance } from "./embedded-maintenance";
export { type EmbeddedThread, startEmbeddedThread } from "./embedded-thread/embedded-thread";
export type { FastSql, SqlParam } from "./fast-sql";
export type * from "./generated/prisma/client";
export { Prisma, PrismaClient } from "./generated/prisma/client";
export {
  appliedMigrationNames,
  applyMigrations,
  diffSchema,
  hasPendingMigrations,
  isEmptyMigration,
  listMigrations,
  markMigrationRolledBack,
} from "./migrate";
export { migrateInChildProcess } from "./migrate-child";
export type { StatementObserver } from "./timed-client";
export {
  type StatementTracer,
  sqlOperation,
  type TracedStatement,
  tracedUnitOfWork,
} from "./traced-unit-of-work";
export { POOLER_PARAMETER, poolerMode } from "./transaction-pooler";
export { type Db, isUniqueViolation, rootUnitOfWork, type UnitOfWork } from "./unit-of-work";
