import type { IssuerStatus } from "@cred/contracts/issuers";
import type { Db, Prisma } from "@cred/db";
import type { TenantScope } from "../shared/principal";

export type IssuerRow = NonNullable<Awaited<ReturnType<Db["issuer"]["findFirst"]>>>;

export const issuerRepository = {
  findById(db: Db, scope: TenantScope, id: string) {
    return db.issuer.findFirst({ where: { id, ...scope } });
  },

  create(db: Db, data: Prisma.IssuerUncheckedCreateInput) {
    return db.issuer.create({ data });
  },

  /** Locks the issuer's row until the transaction ends (concurrent key rotations queue). */
  async lockForUpdate(db: Db, scope: TenantScope, id: string) {
    await db.$queryRaw`SELECT 1 FROM "Issuer" WHERE "id" = ${id} AND "tenantId" = ${scope.tenantId}
      AND "environment" = ${scope.environment} FOR UPDATE`;
  },

  /** Every status list of the issuer gets a new version, so each process signs its token afresh. */
  bumpStatusListVersions(db: Db, issuerId: string) {
    return db.statusList.updateMany({ where: { issuerId }, data: { version: { increment: 1 } } });
  },

  update(db: Db, scope: TenantScope, id: string, data: Prisma.IssuerUncheckedUpdateManyInput) {
    return db.issuer.updateMany({ where: { id, ...scope }, data });
  },

  /** Moves a draft issuer to active; returns false when it was not a draft (any more). */
  async activate(db: Db, scope: TenantScope, id: string, at: Date): Promise<boolean> {
    const { count } = await db.issuer.updateMany({
      where: { id, ...scope, status: "draft" },
      data: { status: "active", activatedAt: at },
    });
    return count === 1;
  },

  list(
    db: Db,
    scope: TenantScope,
    filter: { id?: string; organisationId?: string; status?: IssuerStatus },
    page: { afterId?: string; take: number },
  ) {
    const idFilter: Prisma.StringFilter = {};
    if (filter.id !== undefined) idFilter.equals = filter.id;
    if (page.afterId !== undefined) idFilter.gt = page.afterId;
    return db.issuer.findMany({
      where: {
        ...scope,
        ...(Object.keys(idFilter).length ? { id: idFilter } : {}),
        ...(filter.organisationId !== undefined ? { organisationId: filter.organisationId } : {}),
        ...(filter.status !== undefined ? { status: filter.status } : {}),
      },
      orderBy: { id: "asc" },
      take: page.take,
    });
  },

  /** Organisation references by organisation id (one query for a page of issuers). */
  async organisationReferences(db: Db, scope: TenantScope, organisationIds: string[]) {
    const rows = await db.organisation.findMany({
      where: { ...scope, id: { in: [...new Set(organisationIds)] } },
      select: { id: true, reference: true },
    });
    return new Map(rows.map((row) => [row.id, row.reference]));
  },

  createStatusList(db: Db, data: Prisma.StatusListUncheckedCreateInput) {
    return db.statusList.create({ data, select: { id: true } });
  },

  /** True when the issuer has a status list with free indices. */
  async hasOpenStatusList(db: Db, scope: TenantScope, issuerId: string) {
    const count = await db.statusList.count({ where: { ...scope, issuerId, full: false } });
    return count > 0;
  },

  /** Number of configurations the issuer may use whose current version is active. */
  async countActiveConfigurations(db: Db, scope: TenantScope, issuerId: string) {
    const grants = await db.issuerConfigurationGrant.findMany({
      where: { issuerId },
      select: { configurationId: true },
    });
    if (grants.length === 0) return 0;
    const configurations = await db.credentialConfiguration.findMany({
      where: { ...scope, id: { in: grants.map((g) => g.configurationId) } },
      select: { id: true, activeVersion: true },
    });
    if (configurations.length === 0) return 0;
    return db.credentialConfigurationVersion.count({
      where: {
        status: "active",
        OR: configurations.map((c) => ({ configurationId: c.id, version: c.activeVersion })),
      },
    });
  },
};
