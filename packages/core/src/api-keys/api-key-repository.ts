import type { Prisma, UnitOfWork } from "@cred/db";
import { API_KEYS_BY_PREFIX, type ApiKeyRow } from "../rpc/api-key-lookup-repository";
import type { Caches } from "../shared/caches";
import type { TenantScope } from "../shared/principal";

/** A tenant, and optionally one of its environments (the operator's CLI lists keys across both). */
export type ApiKeyScope = Partial<TenantScope> & { tenantId: string };

export const apiKeyRepository = {
  /** Whether the issuer exists in the scope (a key may be bound to one). */
  async issuerExists(db: UnitOfWork, scope: TenantScope, issuerId: string): Promise<boolean> {
    return (
      (await db.prisma.issuer.findFirst({ where: { id: issuerId, ...scope }, select: { id: true } })) !== null
    );
  },
  create(db: UnitOfWork, data: Prisma.ApiKeyUncheckedCreateInput & TenantScope): Promise<ApiKeyRow> {
    return db.prisma.apiKey.create({ data });
  },
  list(db: UnitOfWork, scope: ApiKeyScope): Promise<ApiKeyRow[]> {
    return db.prisma.apiKey.findMany({ where: scope, orderBy: { id: "asc" } });
  },
  /** The operator's view (CLI): every tenant's keys, or one tenant's. */
  listAcrossTenants(db: UnitOfWork, tenantId: string | undefined): Promise<ApiKeyRow[]> {
    return db.prisma.apiKey.findMany({ where: tenantId ? { tenantId } : {}, orderBy: { id: "asc" } });
  },
  findById(db: UnitOfWork, scope: Partial<ApiKeyScope>, id: string): Promise<ApiKeyRow | null> {
    return db.prisma.apiKey.findFirst({ where: { id, ...scope } });
  },
  /**
   * Revokes the key now, unless it is revoked already, and drops its cached row (by prefix) once that
   * commits, so this process refuses it from the next request.
   */
  async revoke(db: UnitOfWork, caches: Caches, row: ApiKeyRow): Promise<ApiKeyRow> {
    const updated = row.revokedAt
      ? row
      : await db.prisma.apiKey.update({ where: { id: row.id }, data: { revokedAt: new Date() } });
    db.afterCommit(() => caches.of(API_KEYS_BY_PREFIX).delete(row.prefix));
    return updated;
  },
};
