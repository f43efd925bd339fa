import type { Db, Prisma, UnitOfWork } from "@cred/db";
import type { Caches } from "../shared/caches";
import type { TenantScope } from "../shared/principal";
import { configurationCacheKey, configurationsByIdCache, configurationsCache } from "./configuration-caches";

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

  /** By id alone: for rows that name their configuration (transactions, credentials). */
  findById(db: UnitOfWork, id: string) {
    return db.prisma.credentialConfiguration.findUnique({ where: { id } });
  },

  /** One version of a configuration (by the configuration's id, from a row already scoped). */
  findVersion(db: UnitOfWork, configurationId: string, version: number) {
    return db.prisma.credentialConfigurationVersion.findUnique({
      where: { configurationId_version: { configurationId, version } },
    });
  },

  /** Whether the issuer may issue the configuration (by ids from rows already scoped). */
  async isGranted(db: UnitOfWork, issuerId: string, configurationId: string) {
    return (
      (await db.prisma.issuerConfigurationGrant.findUnique({
        where: { issuerId_configurationId: { issuerId, configurationId } },
      })) !== null
    );
  },

  /** Takes the configuration's row lock until the transaction ends (version changes queue); the row as locked. */
  async lockForUpdate(db: UnitOfWork, id: string) {
    await db.prisma.$queryRaw`SELECT 1 FROM "CredentialConfiguration" WHERE "id" = ${id} FOR UPDATE`;
    return db.prisma.credentialConfiguration.findUniqueOrThrow({ where: { id } });
  },

  addVersion(db: UnitOfWork, data: Prisma.CredentialConfigurationVersionUncheckedCreateInput) {
    return db.prisma.credentialConfigurationVersion.create({ data });
  },

  /**
   * Makes `version` the active one: it becomes `active` (activated now), every other `superseded`; this
   * process forgets its cached row of the configuration once committed.
   */
  async activate(db: UnitOfWork, caches: Caches, configurationId: string, version: number, now: Date) {
    await db.prisma.credentialConfigurationVersion.updateMany({
      where: { configurationId, version: { not: version }, status: "active" },
      data: { status: "superseded" },
    });
    await db.prisma.credentialConfigurationVersion.update({
      where: { configurationId_version: { configurationId, version } },
      data: { status: "active", activatedAt: now },
    });
    const row = await db.prisma.credentialConfiguration.update({
      where: { id: configurationId },
      data: { activeVersion: version },
    });
    // Issuance here takes the new active version once committed; dropped earlier, a concurrent read
    // could cache the old row again.
    db.afterCommit(() => {
      caches.of(configurationsCache).delete(configurationCacheKey(row, row.identifier));
      caches.of(configurationsByIdCache).delete(row.id);
    });
    return row;
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
