import type { Principal, TenantScope } from "./principal";

/** The tenant partition of the authenticated caller. */
export function scopeOf(ctx: { principal: Principal }): TenantScope {
  return { tenantId: ctx.principal.tenantId, environment: ctx.principal.environment };
}

/** The partition a stored row belongs to (rows keep environment as text). */
export function scopeOfRow(row: { tenantId: string; environment: string }): TenantScope {
  return { tenantId: row.tenantId, environment: row.environment as TenantScope["environment"] };
}
