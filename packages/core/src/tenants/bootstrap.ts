import { SCOPES } from "@cred/contracts/scopes";
import type { UnitOfWork } from "@cred/db";
import { createApiKey } from "../api-keys";
import { randomToken } from "../shared/ids";
import { createStaffUser } from "../staff";
import { tenantRepository } from "./tenant-repository";
import { createTenant } from "./tenants";

export interface BootstrapCredentials {
  tenantId: string;
  apiKey: string;
  apiKeyEnvironment: "sandbox";
  consoleEmail: string;
  consolePassword: string;
}

/**
 * On a fresh database, creates the default tenant, a sandbox API key with every tenant scope and a
 * console admin who is also the platform operator. Returns the secrets once; returns null when the database was already bootstrapped.
 */
export async function bootstrap(
  db: UnitOfWork,
  adminEmail = "admin@localhost",
): Promise<BootstrapCredentials | null> {
  if ((await tenantRepository.count(db)) > 0) return null;
  return db.transaction(async (tx) => {
    // Several processes starting on a new database at once: one bootstraps, the others find it done.
    await tenantRepository.lockBootstrap(tx);
    if ((await tenantRepository.count(tx)) > 0) return null;
    const tenant = await createTenant(tx, "Default tenant");
    const key = await createApiKey(
      tx,
      { tenantId: tenant.id, environment: "sandbox" },
      { name: "Bootstrap admin key", scopes: [...SCOPES] },
    );
    const password = randomToken(15);
    // The first admin is also the platform operator: they create and suspend tenants (docs/api/tenants.md).
    await createStaffUser(tx, {
      tenantId: tenant.id,
      email: adminEmail,
      password,
      role: "admin",
      platformOperator: true,
    });
    return {
      tenantId: tenant.id,
      apiKey: key.key,
      apiKeyEnvironment: "sandbox" as const,
      consoleEmail: adminEmail,
      consolePassword: password,
    };
  });
}
