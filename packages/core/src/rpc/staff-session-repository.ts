import type { UnitOfWork } from "@cred/db";

/**
 * The reads behind a console session (rpc/staff-session.ts). Staff users belong to a home tenant and may
 * hold memberships in others, so these are keyed by the session token's hash (unguessable), the user and
 * the tenant asked for, not by a tenant scope: they are what tells which tenant the caller acts in.
 */
export const staffSessionRepository = {
  /** The user's membership (and role) in `tenantId`, other than their home tenant; null when none. */
  membership(db: UnitOfWork, userId: string, tenantId: string) {
    return db.prisma.staffMembership.findUnique({ where: { userId_tenantId: { userId, tenantId } } });
  },
  /** The session whose token hashes to `tokenHash` (expired ones included). */
  sessionByTokenHash(db: UnitOfWork, tokenHash: string) {
    return db.prisma.staffSession.findUnique({ where: { tokenHash } });
  },
  userById(db: UnitOfWork, id: string) {
    return db.prisma.staffUser.findUnique({ where: { id } });
  },
  tenantById(db: UnitOfWork, id: string) {
    return db.prisma.tenant.findUnique({ where: { id } });
  },
};
