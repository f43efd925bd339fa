import type { UnitOfWork } from "@cred/db";

/** Tenants themselves: the rows every scope names (no scope of their own). */
export const tenantRepository = {
  create(db: UnitOfWork, id: string, name: string) {
    return db.prisma.tenant.create({ data: { id, name } });
  },
  count(db: UnitOfWork): Promise<number> {
    return db.prisma.tenant.count();
  },
  list(db: UnitOfWork) {
    return db.prisma.tenant.findMany({ orderBy: { id: "asc" } });
  },
  findById(db: UnitOfWork, id: string) {
    return db.prisma.tenant.findUnique({ where: { id } });
  },
  /**
   * Holds the bootstrap lock until the transaction `tx` ends: several processes starting on a new
   * database at once bootstrap one after another (the later ones then find it done).
   */
  async lockBootstrap(tx: UnitOfWork): Promise<void> {
    await tx.prisma.$queryRaw`SELECT 1 AS "locked" FROM (SELECT pg_advisory_xact_lock(72707370)) AS l`;
  },
};
