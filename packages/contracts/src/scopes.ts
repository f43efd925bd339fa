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

export type Scope = (typeof SCOPES)[number];

export const ENVIRONMENTS = ["sandbox", "production"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
