import { VpError } from "@cred/oid4vc";
import { tenantStatusRepository } from "../rpc/tenant-status-repository";
import type { AppDeps } from "../shared/context";

/**
 * A wallet reaching a verification of a suspended tenant (its request object, its response endpoint) is
 * refused with 403 `access_denied` (docs/api/tenants.md): the tenant verifies nothing until reactivated.
 */
export async function assertVerifierTenantActive(deps: AppDeps, tenantId: string): Promise<void> {
  if (await tenantStatusRepository.isSuspended(deps.database.root, deps.caches, tenantId)) {
    throw new VpError(
      "access_denied",
      "the verifier is suspended by the platform operator; it verifies nothing until it is reactivated",
      { status: 403 },
    );
  }
}
