import { PLATFORM_SCOPE, SCOPES, type Scope, STAFF_SCOPE } from "@cred/contracts/scopes";
import type { StaffRole } from "../shared/principal";

/** Console roles mapped onto the API's scopes, so one scope check serves staff and API keys. */
/** The audit trail names people and addresses: administrators read it. Only admins manage the team. */
export const ROLE_SCOPES: Record<StaffRole, readonly Scope[]> = {
  admin: [...SCOPES, STAFF_SCOPE],
  operator: SCOPES.filter((s) => s !== "webhooks.manage" && s !== "audit.read"),
  viewer: SCOPES.filter((s) => s.endsWith(".read") && s !== "audit.read"),
};

/** A staff member's scopes: the role's, plus platform.manage for a platform operator (docs/api/tenants.md). */
export function staffScopes(role: StaffRole, platformOperator: boolean): Scope[] {
  const scopes: Scope[] = [...(ROLE_SCOPES[role] ?? [])];
  if (platformOperator) scopes.push(PLATFORM_SCOPE);
  return scopes;
}
