export { type Database, type DatabaseKind, type DatabaseOptions, openDatabase } from "./client";
export { type FastSql, type SqlParam, sqlFor } from "./fast-sql";
export type * from "./generated/prisma/client";
export { Prisma, PrismaClient } from "./generated/prisma/client";
export { appliedMigrationNames, applyMigrations, listMigrations } from "./migrate";
export { type Db, inTransaction, isUniqueViolation } from "./transaction";
