import type { Environment } from "@cred/contracts/scopes";
import type { UnitOfWork } from "@cred/db";
import { staffScopes } from "../rpc/staff-roles";
import type { StaffSessionView } from "../rpc/staff-session";
import type { StaffRole } from "../shared/principal";
import { staffRepository } from "./staff-repository";

/** The tenants a user can switch to: the home tenant first, then memberships, with names and roles. */
export async function listStaffTenants(db: UnitOfWork, user: { id: string; tenantId: string; role: string }) {
  const memberships = await staffRepository.membershipsOutside(db, user.id, user.tenantId);
  const entries = [
    { tenantId: user.tenantId, role: user.role as StaffRole, home: true },
    ...memberships.map((m) => ({ tenantId: m.tenantId, role: m.role as StaffRole, home: false })),
  ];
  const names = await staffRepository.tenantNames(
    db,
    entries.map((e) => e.tenantId),
  );
  return entries.map((e) => ({
    id: e.tenantId,
    name: names.get(e.tenantId) ?? e.tenantId,
    role: e.role,
    home: e.home,
  }));
}

/** What the console learns about its own session (staff.me / staff.signIn). */
export function toStaffSessionDto(found: StaffSessionView) {
  const role = found.role;
  return {
    user: { id: found.user.id, email: found.user.email, role },
    tenant: { id: found.tenantId, name: found.tenant?.name ?? found.tenantId },
    environment: found.session.environment as Environment,
    scopes: staffScopes(role, found.user.platformOperator),
    csrfToken: found.session.csrfToken,
    expiresAt: found.session.expiresAt.toISOString(),
  };
}
