import type { UnitOfWork } from "@cred/db";
import { TENANT_SUSPENDED } from "../rpc/tenant-status-repository";
import type { Caches } from "../shared/caches";

export type TenantRow = NonNullable<Awaited<ReturnType<typeof tenantRepository.findById>>>;

/** Tenants themselves: the rows every scope names (no scope of their own; platform operations). */
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
  /** A page of tenants by id, after the id `after` when given. */
  page(db: UnitOfWork, limit: number, after: string | undefined) {
    return db.prisma.tenant.findMany({
      where: after ? { id: { gt: after } } : {},
      orderBy: { id: "asc" },
      take: limit,
    });
  },
  findById(db: UnitOfWork, id: string) {
    return db.prisma.tenant.findUnique({ where: { id } });
  },
  /**
   * Sets or clears the tenant's suspension, only when it is not in that state already (null then), and
   * drops this process's cached status once that commits (rpc/tenant-status-repository.ts), so its keys
   * and staff are refused, or served again, from the next request.
   */
  async setSuspended(db: UnitOfWork, caches: Caches, id: string, suspended: boolean) {
    const changed = await db.prisma.tenant.updateMany({
      where: { id, suspendedAt: suspended ? null : { not: null } },
      data: { suspendedAt: suspended ? new Date() : null },
    });
    db.afterCommit(() => caches.of(TENANT_SUSPENDED).delete(id));
    return changed.count === 1 ? db.prisma.tenant.findUnique({ where: { id } }) : null;
  },
  /**
   * Holds the bootstrap lock until the transaction `tx` ends: several processes starting on a new
   * database at once bootstrap one after another (the later ones then find it done).
   */
  async lockBootstrap(tx: UnitOfWork): Promise<void> {
    await tx.prisma.$queryRaw`SELECT 1 AS "locked" FROM (SELECT pg_advisory_xact_lock(72707370)) AS l`;
  },
};
