import type { UnitOfWork } from "@cred/db";
import { DomainError } from "../shared/errors";
import type { StaffRole } from "../shared/principal";
import { constantTimeEqual, hashSecret } from "../shared/secret-box";
import { staffSessionRepository } from "./staff-session-repository";

/**
 * The tenant a user works in and their role there: the home tenant (`StaffUser.tenantId`, role on the
 * user) when `tenantId` is null or the home tenant, otherwise a `StaffMembership` row's role. Null when
 * the user has no membership in that tenant (e.g. it was removed while a session pointed at it).
 */
export async function resolveStaffTenant(
  db: UnitOfWork,
  user: { id: string; tenantId: string; role: string },
  tenantId: string | null,
): Promise<{ tenantId: string; role: StaffRole } | null> {
  if (!tenantId || tenantId === user.tenantId)
    return { tenantId: user.tenantId, role: user.role as StaffRole };
  const membership = await staffSessionRepository.membership(db, user.id, tenantId);
  return membership ? { tenantId, role: membership.role as StaffRole } : null;
}

/**
 * A live console session with its user, current tenant and role there, or null when the token is
 * unknown or expired, or the session points at a tenant the user no longer belongs to.
 */
export async function findStaffSession(db: UnitOfWork, token: string) {
  const session = await staffSessionRepository.sessionByTokenHash(db, hashSecret(token));
  if (!session || session.expiresAt.getTime() <= Date.now()) return null;
  const user = await staffSessionRepository.userById(db, session.userId);
  if (!user) return null;
  const current = await resolveStaffTenant(db, user, session.tenantId);
  if (!current) return null;
  const tenant = await staffSessionRepository.tenantById(db, current.tenantId);
  return { session, user, tenant, tenantId: current.tenantId, role: current.role };
}

export type StaffSessionView = NonNullable<Awaited<ReturnType<typeof findStaffSession>>>;

/**
 * CSRF for console mutations (synchronizer token, sent back as `x-csrf-token`): the header must equal
 * the token stored with the session the cookie names. Cross-site pages can send the cookie but can
 * neither read `staff.me` nor set custom headers on a simple request.
 */
export async function assertStaffCsrf(db: UnitOfWork, sessionToken: string, presented: string | undefined) {
  const session = await staffSessionRepository.sessionByTokenHash(db, hashSecret(sessionToken));
  if (!session || !presented || !constantTimeEqual(presented, session.csrfToken)) {
    throw new DomainError(
      "CsrfTokenInvalid",
      "Console changes need the session's CSRF token in the x-csrf-token header; reload the page.",
    );
  }
}
