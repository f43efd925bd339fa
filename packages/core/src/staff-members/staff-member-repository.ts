import type { UnitOfWork } from "@cred/db";

/**
 * A tenant's team: the console users whose home it is (`StaffUser.tenantId`, role on the user) and those
 * of other tenants with a membership in it (`StaffMembership`, role on the membership). Every query
 * names the tenant, so another tenant's users are never found.
 */
export const staffMemberRepository = {
  /** Serialises the team changes of one tenant (the last-admin guard counts, then changes). */
  async lockTenant(db: UnitOfWork, tenantId: string): Promise<void> {
    await db.prisma.$queryRaw`SELECT 1 AS "locked" FROM "Tenant" WHERE "id" = ${tenantId} FOR UPDATE`;
  },
  /** Users whose home is the tenant, by id, after `after` when given. */
  homeUsers(db: UnitOfWork, tenantId: string, take: number, after?: string) {
    return db.prisma.staffUser.findMany({
      where: { tenantId, ...(after ? { id: { gt: after } } : {}) },
      orderBy: { id: "asc" },
      take,
    });
  },
  /** Memberships in the tenant, by user id, after `after` when given. */
  memberships(db: UnitOfWork, tenantId: string, take: number, after?: string) {
    return db.prisma.staffMembership.findMany({
      where: { tenantId, ...(after ? { userId: { gt: after } } : {}) },
      orderBy: { userId: "asc" },
      take,
    });
  },
  usersByIds(db: UnitOfWork, ids: string[]) {
    return db.prisma.staffUser.findMany({ where: { id: { in: ids } } });
  },
  userById(db: UnitOfWork, id: string) {
    return db.prisma.staffUser.findUnique({ where: { id } });
  },
  /** `email` as stored: lower case. */
  userByEmail(db: UnitOfWork, email: string) {
    return db.prisma.staffUser.findUnique({ where: { email } });
  },
  membership(db: UnitOfWork, userId: string, tenantId: string) {
    return db.prisma.staffMembership.findUnique({ where: { userId_tenantId: { userId, tenantId } } });
  },
  /** The user's memberships outside the tenant, oldest first. */
  membershipsElsewhere(db: UnitOfWork, userId: string, tenantId: string) {
    return db.prisma.staffMembership.findMany({
      where: { userId, tenantId: { not: tenantId } },
      orderBy: { createdAt: "asc" },
    });
  },
  /** Administrators of the tenant: home users and members with the admin role. */
  async countAdmins(db: UnitOfWork, tenantId: string): Promise<number> {
    const [home, members] = await Promise.all([
      db.prisma.staffUser.count({ where: { tenantId, role: "admin" } }),
      db.prisma.staffMembership.count({ where: { tenantId, role: "admin" } }),
    ]);
    return home + members;
  },
  createMembership(db: UnitOfWork, userId: string, tenantId: string, role: string) {
    return db.prisma.staffMembership.create({ data: { userId, tenantId, role } });
  },
  async setUserRole(db: UnitOfWork, userId: string, role: string): Promise<void> {
    await db.prisma.staffUser.update({ where: { id: userId }, data: { role } });
  },
  async setMembershipRole(db: UnitOfWork, userId: string, tenantId: string, role: string): Promise<void> {
    await db.prisma.staffMembership.update({
      where: { userId_tenantId: { userId, tenantId } },
      data: { role },
    });
  },
  async deleteMembership(db: UnitOfWork, userId: string, tenantId: string): Promise<void> {
    await db.prisma.staffMembership.deleteMany({ where: { userId, tenantId } });
  },
  async deleteUser(db: UnitOfWork, userId: string): Promise<void> {
    await db.prisma.staffUser.deleteMany({ where: { id: userId } });
  },
  /** Makes `tenantId` (where the user holds a membership) the user's home, with the membership's role. */
  async moveHome(db: UnitOfWork, userId: string, tenantId: string, role: string): Promise<void> {
    await db.prisma.staffUser.update({ where: { id: userId }, data: { tenantId, role } });
    await db.prisma.staffMembership.deleteMany({ where: { userId, tenantId } });
  },
  async setPasswordHash(db: UnitOfWork, userId: string, passwordHash: string): Promise<void> {
    await db.prisma.staffUser.update({ where: { id: userId }, data: { passwordHash } });
  },
  /** Ends every console session of the user (each tenant's): how many there were. */
  async deleteSessionsOfUser(db: UnitOfWork, userId: string): Promise<number> {
    return (await db.prisma.staffSession.deleteMany({ where: { userId } })).count;
  },
};
