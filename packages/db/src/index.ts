export { type Database, type DatabaseKind, type DatabaseOptions, openDatabase } from "./client";
export type * from "./generated/prisma/client";
export { Prisma, PrismaClient } from "./generated/prisma/client";
export { appliedMigrationNames, applyMigrations, listMigrations } from "./migrate";
export { type Db, inTransaction, isUniqueViolation } from "./transaction";
