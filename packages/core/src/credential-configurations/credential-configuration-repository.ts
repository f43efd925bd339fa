import type { Db, Prisma } from "@cred/db";
import type { TenantScope } from "../shared/principal";

export type CredentialConfigurationRow = NonNullable<
  Awaited<ReturnType<Db["credentialConfiguration"]["findFirst"]>>
>;
export type CredentialConfigurationVersionRow = NonNullable<
  Awaited<ReturnType<Db["credentialConfigurationVersion"]["findFirst"]>>
>;

export const credentialConfigurationRepository = {
  findByIdentifier(db: Db, scope: TenantScope, identifier: string) {
    return db.credentialConfiguration.findUnique({
      where: { tenantId_environment_identifier: { ...scope, identifier } },
    });
  },

  /** Takes the configuration's row lock until the transaction ends (version changes queue); the row as locked. */
  async lockForUpdate(db: Db, id: string) {
    await db.$queryRaw`SELECT 1 FROM "CredentialConfiguration" WHERE "id" = ${id} FOR UPDATE`;
    return db.credentialConfiguration.findUniqueOrThrow({ where: { id } });
  },

  addVersion(db: Db, data: Prisma.CredentialConfigurationVersionUncheckedCreateInput) {
    return db.credentialConfigurationVersion.create({ data });
  },

  /** Makes `version` the active one: it becomes `active` (activated now), every other `superseded`. */
  async activate(db: Db, configurationId: string, version: number, now: Date) {
    await db.credentialConfigurationVersion.updateMany({
      where: { configurationId, version: { not: version }, status: "active" },
      data: { status: "superseded" },
    });
    await db.credentialConfigurationVersion.update({
      where: { configurationId_version: { configurationId, version } },
      data: { status: "active", activatedAt: now },
    });
    return db.credentialConfiguration.update({
      where: { id: configurationId },
      data: { activeVersion: version },
    });
  },

  /** Creates the configuration, its given version and the grant that lets `issuerId` use it. */
  async create(
    db: Db,
    data: Prisma.CredentialConfigurationUncheckedCreateInput,
    version: Omit<Prisma.CredentialConfigurationVersionUncheckedCreateInput, "configurationId">,
  ) {
    const configuration = await db.credentialConfiguration.create({ data });
    const firstVersion = await db.credentialConfigurationVersion.create({
      data: { ...version, configurationId: configuration.id },
    });
    await db.issuerConfigurationGrant.create({
      data: { issuerId: configuration.issuerId, configurationId: configuration.id },
    });
    return { configuration, versions: [firstVersion] };
  },

  /** Configurations in id order; with `issuerId`, those granted to that issuer. */
  async list(
    db: Db,
    scope: TenantScope,
    filter: { issuerId?: string },
    page: { afterId?: string; take: number },
  ) {
    const idFilter: Prisma.StringFilter = {};
    if (filter.issuerId !== undefined) {
      const grants = await db.issuerConfigurationGrant.findMany({
        where: { issuerId: filter.issuerId },
        select: { configurationId: true },
      });
      idFilter.in = grants.map((g) => g.configurationId);
    }
    if (page.afterId !== undefined) idFilter.gt = page.afterId;
    return db.credentialConfiguration.findMany({
      where: { ...scope, ...(Object.keys(idFilter).length ? { id: idFilter } : {}) },
      orderBy: { id: "asc" },
      take: page.take,
    });
  },

  /** Versions of one (already tenant-checked) configuration, oldest first. */
  async versionsOfOne(db: Db, configurationId: string) {
    return (await this.versionsOf(db, [configurationId])).get(configurationId) ?? [];
  },

  /** Versions of the given (already tenant-checked) configurations, oldest first, by configuration id. */
  async versionsOf(db: Db, configurationIds: string[]) {
    const rows = await db.credentialConfigurationVersion.findMany({
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
