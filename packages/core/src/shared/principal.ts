import type { Environment, Scope } from "@cred/contracts/scopes";

/** Who is calling, after authentication: an API key or a console staff member. */
export type Principal =
  | {
      kind: "apiKey";
      id: string;
      tenantId: string;
      environment: Environment;
      scopes: ReadonlySet<Scope>;
      /** Set for issuer-client keys, which act for one issuer only. */
      issuerId: string | null;
      /** The key's name, as its creator gave it (audit trail). */
      name: string;
    }
  | {
      kind: "staff";
      id: string;
      tenantId: string;
      environment: Environment;
      scopes: ReadonlySet<Scope>;
      issuerId: null;
      role: StaffRole;
      email: string;
    };

export type StaffRole = "admin" | "operator" | "viewer";

/** The partition every repository call is filtered by. */
export interface Scope_ {
  tenantId: string;
  environment: Environment;
}
export type TenantScope = Scope_;
