import { DomainError } from "../shared/errors";
import type { Principal, StaffRole } from "../shared/principal";

/** Console-only operations: the caller must be a staff member with one of these roles. */
export function assertStaffRole(principal: Principal, roles: readonly StaffRole[]) {
  if (principal.kind !== "staff" || !roles.includes(principal.role)) {
    throw new DomainError(
      "MissingScope",
      `This console operation needs the ${roles.map((r) => `'${r}'`).join(" or ")} role.`,
    );
  }
  return principal;
}
