import type { Db } from "@cred/db";
import type { TenantScope } from "../shared/principal";

export const organisationRepository = {
  findByReference(db: Db, scope: TenantScope, reference: string) {
    return db.organisation.findUnique({
      where: { tenantId_environment_reference: { ...scope, reference } },
    });
  },
  findById(db: Db, scope: TenantScope, id: string) {
    return db.organisation.findFirst({ where: { id, ...scope } });
  },
  list(db: Db, scope: TenantScope, page: { afterId?: string; take: number }) {
    return db.organisation.findMany({
      where: { ...scope, ...(page.afterId ? { id: { gt: page.afterId } } : {}) },
      orderBy: { id: "asc" },
      take: page.take,
    });
  },
};
