import type { Prisma, UnitOfWork } from "@cred/db";

/**
 * Console users, their sessions and memberships. A user has a home tenant and may hold memberships in
 * others, so users are found by email or id and sessions by their token's hash (unguessable), not by a
 * tenant scope; the tenant a session acts in is checked against the memberships (rpc/staff-session.ts).
 */
export const staffRepository = {
  createUser(db: UnitOfWork, data: Prisma.StaffUserUncheckedCreateInput) {
    return db.prisma.staffUser.create({ data });
  },
  /** `email` as stored: lower case. */
  userByEmail(db: UnitOfWork, email: string) {
    return db.prisma.staffUser.findUnique({ where: { email } });
  },
  async tenantExists(db: UnitOfWork, tenantId: string): Promise<boolean> {
    return (await db.prisma.tenant.findUnique({ where: { id: tenantId } })) !== null;
  },
  /** The names of these tenants, by id (the console's tenant switcher). */
  async tenantNames(db: UnitOfWork, tenantIds: string[]): Promise<Map<string, string>> {
    const tenants = await db.prisma.tenant.findMany({ where: { id: { in: tenantIds } } });
    return new Map(tenants.map((t) => [t.id, t.name]));
  },
  /** The user's memberships outside their home tenant, oldest first. */
  membershipsOutside(db: UnitOfWork, userId: string, homeTenantId: string) {
    return db.prisma.staffMembership.findMany({
      where: { userId, tenantId: { not: homeTenantId } },
      orderBy: { createdAt: "asc" },
    });
  },
  upsertMembership(db: UnitOfWork, userId: string, tenantId: string, role: string) {
    return db.prisma.staffMembership.upsert({
      where: { userId_tenantId: { userId, tenantId } },
      create: { userId, tenantId, role },
      update: { role },
    });
  },
  async setPasswordHash(db: UnitOfWork, userId: string, passwordHash: string): Promise<void> {
    await db.prisma.staffUser.update({ where: { id: userId }, data: { passwordHash } });
  },

  // Sessions -------------------------------------------------------------------------------------

  async createSession(db: UnitOfWork, data: Prisma.StaffSessionUncheckedCreateInput): Promise<void> {
    await db.prisma.staffSession.create({ data });
  },
  async deleteSession(db: UnitOfWork, tokenHash: string): Promise<void> {
    await db.prisma.staffSession.deleteMany({ where: { tokenHash } });
  },
  async deleteSessionsOfUser(db: UnitOfWork, userId: string): Promise<void> {
    await db.prisma.staffSession.deleteMany({ where: { userId } });
  },
  async setSessionEnvironment(db: UnitOfWork, tokenHash: string, environment: string): Promise<void> {
    await db.prisma.staffSession.updateMany({ where: { tokenHash }, data: { environment } });
  },
  /** The tenant the session acts in; null: the user's home tenant. */
  async setSessionTenant(db: UnitOfWork, tokenHash: string, tenantId: string | null): Promise<void> {
    await db.prisma.staffSession.updateMany({ where: { tokenHash }, data: { tenantId } });
  },
};
