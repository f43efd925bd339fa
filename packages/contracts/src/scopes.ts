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
  "audit.read",
] as const;

/**
 * The platform operator's scope (docs/api/tenants.md): tenant administration across tenants. Not in
 * SCOPES, so no tenant API key or tenant role can hold it: platform-operator staff sessions get it, and
 * platform API keys made by the operator CLI (`pnpm cli keys create-platform`).
 */
export const PLATFORM_SCOPE = "platform.manage" as const;

/** A tenant scope (SCOPES) or the platform scope: what an operation may require. */
export type Scope = (typeof SCOPES)[number] | typeof PLATFORM_SCOPE;

/** The scopes a tenant's API key or role may hold. */
export type TenantScopeName = (typeof SCOPES)[number];

export const ENVIRONMENTS = ["sandbox", "production"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value) || value === PLATFORM_SCOPE;
}
