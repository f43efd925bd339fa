import type { Db } from "@cred/db";
import { DomainError } from "../shared/errors";
import type { StaffRole } from "../shared/principal";
import type { Environment } from "../shared/scopes";
import { constantTimeEqual, hashSecret } from "../shared/secret-box";
import { ROLE_SCOPES } from "./roles";

/** A live console session with its user and tenant, or null when the token is unknown or expired. */
export async function findStaffSession(db: Db, token: string) {
  const session = await db.staffSession.findUnique({ where: { tokenHash: hashSecret(token) } });
  if (!session || session.expiresAt.getTime() <= Date.now()) return null;
  const user = await db.staffUser.findUnique({ where: { id: session.userId } });
  if (!user) return null;
  const tenant = await db.tenant.findUnique({ where: { id: user.tenantId } });
  return { session, user, tenant };
}

export type StaffSessionView = NonNullable<Awaited<ReturnType<typeof findStaffSession>>>;

/** What the console learns about its own session (staff.me / staff.signIn). */
export function toStaffSessionDto(found: StaffSessionView) {
  const role = found.user.role as StaffRole;
  return {
    user: { id: found.user.id, email: found.user.email, role },
    tenant: { id: found.user.tenantId, name: found.tenant?.name ?? found.user.tenantId },
    environment: found.session.environment as Environment,
    scopes: [...(ROLE_SCOPES[role] ?? [])],
    csrfToken: found.session.csrfToken,
    expiresAt: found.session.expiresAt.toISOString(),
  };
}

/**
 * CSRF for console mutations (synchronizer token, sent back as `x-csrf-token`): the header must equal
 * the token stored with the session the cookie names. Cross-site pages can send the cookie but can
 * neither read `staff.me` nor set custom headers on a simple request.
 */
export async function assertStaffCsrf(db: Db, sessionToken: string, presented: string | undefined) {
  const session = await db.staffSession.findUnique({ where: { tokenHash: hashSecret(sessionToken) } });
  if (!session || !presented || !constantTimeEqual(presented, session.csrfToken)) {
    throw new DomainError(
      "CsrfTokenInvalid",
      "Console changes need the session's CSRF token in the x-csrf-token header; reload the page.",
    );
  }
}
