export const SCOPES = [
  "credentials.issue",
  "credentials.read",
  "credentials.revoke",
  "verification.execute",
  "verification.read",
  "credential-configurations.manage",
  "issuers.manage",
  "issuers.read",
  "organisations.manage",
  "organisations.read",
  "verification-policies.manage",
  "verification-policies.read",
  "webhooks.manage",
  "webhooks.read",
  "trust-sources.manage",
  "trust-sources.read",
  "audit.read",
] as const;

/**
 * The platform operator's scope (docs/api/tenants.md): tenant administration across tenants. Not in
 * SCOPES, so no tenant API key or tenant role can hold it: platform-operator staff sessions get it, and
 * platform API keys made by the operator CLI (`pnpm cli keys create-platform`).
 */
export const PLATFORM_SCOPE = "platform.manage" as const;

/**
 * Team management (docs/api/staff-members.md): adding, removing and re-roling a tenant's console users,
 * resetting their passwords, signing them out. Not in SCOPES, because it reaches past one environment
 * (a console user works in both): a tenant's admin role holds it, and a tenant API key may hold it only
 * in production, never with an issuer, so a sandbox key cannot make itself a production administrator.
 */
export const STAFF_SCOPE = "staff.manage" as const;

/** A tenant scope (SCOPES), the staff scope or the platform scope: what an operation may require. */
export type Scope = (typeof SCOPES)[number] | typeof STAFF_SCOPE | typeof PLATFORM_SCOPE;

/** The scopes a tenant's API key or role may hold. */
export type TenantScopeName = (typeof SCOPES)[number];

export const ENVIRONMENTS = ["sandbox", "production"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value) || value === STAFF_SCOPE || value === PLATFORM_SCOPE;
}
