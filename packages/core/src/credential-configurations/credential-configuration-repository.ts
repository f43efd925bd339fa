import type { Db, Prisma, UnitOfWork } from "@cred/db";
import type { TenantScope } from "../shared/principal";

export type CredentialConfigurationRow = NonNullable<
  Awaited<ReturnType<Db["credentialConfiguration"]["findFirst"]>>
>;
export type CredentialConfigurationVersionRow = NonNullable<
  Awaited<ReturnType<Db["credentialConfigurationVersion"]["findFirst"]>>
>;

export const credentialConfigurationRepository = {
  findByIdentifier(db: UnitOfWork, scope: TenantScope, identifier: string) {
    return db.prisma.credentialConfiguration.findUnique({
      where: { tenantId_environment_identifier: { ...scope, identifier } },
    });
  },

  /** Takes the configuration's row lock until the transaction ends (version changes queue); the row as locked. */
  async lockForUpdate(db: UnitOfWork, id: string) {
    await db.prisma.$queryRaw`SELECT 1 FROM "CredentialConfiguration" WHERE "id" = ${id} FOR UPDATE`;
    return db.prisma.credentialConfiguration.findUniqueOrThrow({ where: { id } });
  },

  addVersion(db: UnitOfWork, data: Prisma.CredentialConfigurationVersionUncheckedCreateInput) {
    return db.prisma.credentialConfigurationVersion.create({ data });
  },

  /** Makes `version` the active one: it becomes `active` (activated now), every other `superseded`. */
  async activate(db: UnitOfWork, configurationId: string, version: number, now: Date) {
    await db.prisma.credentialConfigurationVersion.updateMany({
      where: { configurationId, version: { not: version }, status: "active" },
      data: { status: "superseded" },
    });
    await db.prisma.credentialConfigurationVersion.update({
      where: { configurationId_version: { configurationId, version } },
      data: { status: "active", activatedAt: now },
    });
    return db.prisma.credentialConfiguration.update({
      where: { id: configurationId },
      data: { activeVersion: version },
    });
  },

  /** Creates the configuration, its given version and the grant that lets `issuerId` use it. */
  async create(
    db: UnitOfWork,
    data: Prisma.CredentialConfigurationUncheckedCreateInput,
    version: Omit<Prisma.CredentialConfigurationVersionUncheckedCreateInput, "configurationId">,
  ) {
    const configuration = await db.prisma.credentialConfiguration.create({ data });
    const firstVersion = await db.prisma.credentialConfigurationVersion.create({
      data: { ...version, configurationId: configuration.id },
    });
    await db.prisma.issuerConfigurationGrant.create({
      data: { issuerId: configuration.issuerId, configurationId: configuration.id },
    });
    return { configuration, versions: [firstVersion] };
  },

  /** Configurations in id order; with `issuerId`, those granted to that issuer. */
  async list(
    db: UnitOfWork,
    scope: TenantScope,
    filter: { issuerId?: string },
    page: { afterId?: string; take: number },
  ) {
    const idFilter: Prisma.StringFilter = {};
    if (filter.issuerId !== undefined) {
      const grants = await db.prisma.issuerConfigurationGrant.findMany({
        where: { issuerId: filter.issuerId },
        select: { configurationId: true },
      });
      idFilter.in = grants.map((g) => g.configurationId);
    }
    if (page.afterId !== undefined) idFilter.gt = page.afterId;
    return db.prisma.credentialConfiguration.findMany({
      where: { ...scope, ...(Object.keys(idFilter).length ? { id: idFilter } : {}) },
      orderBy: { id: "asc" },
      take: page.take,
    });
  },

  /** Versions of one (already tenant-checked) configuration, oldest first. */
  async versionsOfOne(db: UnitOfWork, configurationId: string) {
    return (await this.versionsOf(db, [configurationId])).get(configurationId) ?? [];
  },

  /** Versions of the given (already tenant-checked) configurations, oldest first, by configuration id. */
  async versionsOf(db: UnitOfWork, configurationIds: string[]) {
    const rows = await db.prisma.credentialConfigurationVersion.findMany({
      where: { configurationId: { in: configurationIds } },
      orderBy: [{ configurationId: "asc" }, { version: "asc" }],
    });
    const byConfiguration = new Map<string, CredentialConfigurationVersionRow[]>();
    for (const row of rows) {
      const list = byConfiguration.get(row.configurationId) ?? [];
      list.push(row);
      byConfiguration.set(row.configurationId, list);
    }
    return byConfiguration;
  },
};
