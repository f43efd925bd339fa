import type { Environment } from "@cred/contracts/scopes";
import type { UnitOfWork } from "@cred/db";
import type { Principal } from "../shared/principal";
import { staffScopes } from "./staff-roles";
import { findStaffSession } from "./staff-session";

/**
 * The staff principal for a console session: the session's tenant (home tenant when unset) and the
 * role held there. A session pointing at a tenant the user no longer belongs to counts as signed out.
 */
export async function findStaffPrincipal(db: UnitOfWork, token: string): Promise<Principal | null> {
  const found = await findStaffSession(db, token);
  if (!found) return null;
  return {
    kind: "staff",
    id: found.user.id,
    tenantId: found.tenantId,
    environment: found.session.environment as Environment,
    scopes: new Set(staffScopes(found.role, found.user.platformOperator)),
    issuerId: null,
    role: found.role,
    email: found.user.email,
  };
}
