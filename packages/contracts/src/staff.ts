import { z } from "zod";
import { ENVIRONMENTS, PLATFORM_SCOPE, SCOPES, STAFF_SCOPE } from "./scopes";

export const STAFF_ROLES = ["admin", "operator", "viewer"] as const;

export const ZSignInRequest = z.strictObject({
  email: z.string().trim().min(1).max(320),
  password: z.string().min(1).max(1000),
});

export const zStaffSession = z.object({
  user: z.object({ id: z.string(), email: z.string(), role: z.enum(STAFF_ROLES) }),
  tenant: z.object({ id: z.string(), name: z.string() }),
  environment: z.enum(ENVIRONMENTS),
  scopes: z.array(z.enum([...SCOPES, STAFF_SCOPE, PLATFORM_SCOPE])),
  /** Send back as `x-csrf-token` on every mutation. */
  csrfToken: z.string(),
  expiresAt: z.string(),
});
export type TStaffSession = z.infer<typeof zStaffSession>;

export const ZStaffSessionResponse = z.object({ data: zStaffSession });
export const ZMeResponse = z.object({ data: zStaffSession.nullable() });
export const ZSwitchEnvironmentRequest = z.strictObject({ environment: z.enum(ENVIRONMENTS) });
export const ZSignOutResponse = z.object({ data: z.object({ signedOut: z.literal(true) }) });
export const ZSwitchTenantRequest = z.strictObject({ tenantId: z.string().min(1).max(100) });
export const zStaffTenant = z.object({
  id: z.string(),
  name: z.string(),
  role: z.enum(STAFF_ROLES),
  /** The user's home tenant (StaffUser.tenantId); the others come from memberships. */
  home: z.boolean(),
});
export const ZStaffTenantsResponse = z.object({ data: z.array(zStaffTenant) });
