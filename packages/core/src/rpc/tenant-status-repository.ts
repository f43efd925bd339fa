import type { UnitOfWork } from "@cred/db";
import { type Caches, cacheSpec } from "../shared/caches";

/**
 * Whether a tenant is suspended, by tenant id, for at most two seconds: every authenticated call asks.
 * Suspending or reactivating in this process drops the entry once it commits
 * (tenants/tenant-repository.ts); another process sees it within the TTL (docs/api/tenants.md).
 */
export const TENANT_SUSPENDED = cacheSpec<{ suspended: boolean }>("rpc.tenantSuspended", {
  max: 10_000,
  ttlMs: 2_000,
});

/** The caller's tenant status, before any tenant-scoped read: keyed by the tenant id itself. */
export const tenantStatusRepository = {
  /** True when the tenant is suspended; a tenant that does not exist reads as not suspended. */
  async isSuspended(db: UnitOfWork, caches: Caches, tenantId: string): Promise<boolean> {
    const status = await caches.of(TENANT_SUSPENDED).get(tenantId, async () => {
      const row = await db.prisma.tenant.findUnique({
        where: { id: tenantId },
        select: { suspendedAt: true },
      });
      return { suspended: row?.suspendedAt != null };
    });
    return status.suspended;
  },
};
