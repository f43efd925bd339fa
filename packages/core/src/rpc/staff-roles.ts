import { SCOPES, type Scope } from "@cred/contracts/scopes";
import type { StaffRole } from "../shared/principal";

/** Console roles mapped onto the API's scopes, so one scope check serves staff and API keys. */
/** The audit trail names people and addresses: administrators read it. */
export const ROLE_SCOPES: Record<StaffRole, readonly Scope[]> = {
  admin: SCOPES,
  operator: SCOPES.filter((s) => s !== "webhooks.manage" && s !== "audit.read"),
  viewer: SCOPES.filter((s) => s.endsWith(".read") && s !== "audit.read"),
};
