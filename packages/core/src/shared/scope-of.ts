import type { Principal, TenantScope } from "./principal";

/** The tenant partition of the authenticated caller. */
export function scopeOf(ctx: { principal: Principal }): TenantScope {
  return { tenantId: ctx.principal.tenantId, environment: ctx.principal.environment };
}
