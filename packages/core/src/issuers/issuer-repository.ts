import type { IssuerStatus } from "@cred/contracts/issuers";
import { Prisma, type UnitOfWork } from "@cred/db";
import type { Caches } from "../shared/caches";
import type { TenantScope } from "../shared/principal";
import { forgetIssuerAfterCommit } from "./issuer-caches";
import type { IssuerRow } from "./issuer-keys";

export type { IssuerRow } from "./issuer-keys";

const WITH_KEYS = { keys: true } as const;

/** The issuer's optional JSON settings: `null` clears one (stored as SQL NULL). */
const NULLABLE_JSON = [
  "walletAttestation",
  "keyAttestation",
  "authorizationPage",
  "allowedRedirectUris",
  "credentialEncryption",
  "keyCustodyPurposes",
] as const;
type NullableJson = (typeof NULLABLE_JSON)[number];

export type IssuerChanges = Omit<Prisma.IssuerUncheckedUpdateManyInput, NullableJson> & {
  [K in NullableJson]?: Prisma.InputJsonValue | null;
};

export const issuerRepository = {
  findById(db: UnitOfWork, scope: TenantScope, id: string): Promise<IssuerRow | null> {
    return db.prisma.issuer.findFirst({ where: { id, ...scope }, include: WITH_KEYS });
  },

  /**
   * The issuer with its keys by id alone: for wallet-facing URLs, which name the issuer and no tenant
   * (the active issuer read that `activeIssuer` caches, and fresh reads of it).
   */
  findByIdWithKeys(db: UnitOfWork, issuerId: string): Promise<IssuerRow | null> {
    return db.prisma.issuer.findUnique({ where: { id: issuerId }, include: WITH_KEYS });
  },

  create(db: UnitOfWork, data: Prisma.IssuerUncheckedCreateInput) {
    return db.prisma.issuer.create({ data });
  },

  /** The environment's verifier certificate chain (readiness shows the access certificate's expiry). */
  findVerifierCertificateChain(db: UnitOfWork, scope: TenantScope) {
    return db.prisma.verifierCertificate.findUnique({
      where: { tenantId_environment: scope },
      select: { chainPem: true, keyProvider: true, providerKeyRef: true },
    });
  },

  /** The environment's default registration certificate, when one is installed, with its expiry. */
  findRegistrationExpiry(db: UnitOfWork, scope: TenantScope) {
    return db.prisma.verifierRegistrationCertificate.findUnique({
      where: { tenantId_environment_defaultKey: { ...scope, defaultKey: "default" } },
      select: { expiresAt: true },
    });
  },

  /**
   * The registration certificates added by id (every one but the default), oldest first, each with the
   * relying party's name when held for one (readiness lists their expiry). At most `take`.
   */
  async otherRegistrationExpiries(db: UnitOfWork, scope: TenantScope, take = 100) {
    const rows = await db.prisma.verifierRegistrationCertificate.findMany({
      where: { ...scope, defaultKey: null },
      select: { id: true, relyingPartyId: true, registration: true, expiresAt: true },
      orderBy: { id: "asc" },
      take,
    });
    const partyIds = [...new Set(rows.flatMap((r) => (r.relyingPartyId ? [r.relyingPartyId] : [])))];
    const parties = partyIds.length
      ? await db.prisma.relyingParty.findMany({
          where: { ...scope, id: { in: partyIds } },
          select: { id: true, name: true },
        })
      : [];
    const names = new Map(parties.map((p) => [p.id, p.name]));
    return rows.map((r) => ({
      id: r.id,
      relyingPartyId: r.relyingPartyId,
      relyingPartyName: r.relyingPartyId ? (names.get(r.relyingPartyId) ?? null) : null,
      name: (r.registration as { name?: string | null }).name ?? null,
      expiresAt: r.expiresAt,
    }));
  },

  /** Locks the issuer's row until the transaction ends (concurrent key rotations queue). */
  async lockForUpdate(db: UnitOfWork, scope: TenantScope, id: string) {
    await db.prisma.$queryRaw`SELECT 1 FROM "Issuer" WHERE "id" = ${id} AND "tenantId" = ${scope.tenantId}
      AND "environment" = ${scope.environment} FOR UPDATE`;
  },

  /** Every status list of the issuer gets a new version, so each process signs its token afresh. */
  bumpStatusListVersions(db: UnitOfWork, issuerId: string) {
    return db.prisma.statusList.updateMany({ where: { issuerId }, data: { version: { increment: 1 } } });
  },

  /** Changes the row; this process forgets what it cached of the issuer once committed. */
  update(db: UnitOfWork, caches: Caches, scope: TenantScope, id: string, changes: IssuerChanges) {
    const data: Prisma.IssuerUncheckedUpdateManyInput = {
      ...changes,
    } as Prisma.IssuerUncheckedUpdateManyInput;
    for (const column of NULLABLE_JSON) if (changes[column] === null) data[column] = Prisma.DbNull;
    forgetIssuerAfterCommit(db, caches, id);
    return db.prisma.issuer.updateMany({ where: { id, ...scope }, data });
  },

  /** Moves a draft issuer to active; returns false when it was not a draft (any more). */
  async activate(db: UnitOfWork, scope: TenantScope, id: string, at: Date): Promise<boolean> {
    const { count } = await db.prisma.issuer.updateMany({
      where: { id, ...scope, status: "draft" },
      data: { status: "active", activatedAt: at },
    });
    return count === 1;
  },

  list(
    db: UnitOfWork,
    scope: TenantScope,
    filter: { id?: string; organisationId?: string; status?: IssuerStatus },
    page: { afterId?: string; take: number },
  ) {
    const idFilter: Prisma.StringFilter = {};
    if (filter.id !== undefined) idFilter.equals = filter.id;
    if (page.afterId !== undefined) idFilter.gt = page.afterId;
    return db.prisma.issuer.findMany({
      where: {
        ...scope,
        ...(Object.keys(idFilter).length ? { id: idFilter } : {}),
        ...(filter.organisationId !== undefined ? { organisationId: filter.organisationId } : {}),
        ...(filter.status !== undefined ? { status: filter.status } : {}),
      },
      orderBy: { id: "asc" },
      take: page.take,
      include: WITH_KEYS,
    });
  },

  /** Organisation references by organisation id (one query for a page of issuers). */
  async organisationReferences(db: UnitOfWork, scope: TenantScope, organisationIds: string[]) {
    const rows = await db.prisma.organisation.findMany({
      where: { ...scope, id: { in: [...new Set(organisationIds)] } },
      select: { id: true, reference: true },
    });
    return new Map(rows.map((row) => [row.id, row.reference]));
  },

  /** 1 when the organisation exists in the partition, else 0 (readiness). */
  countOrganisation(db: UnitOfWork, scope: TenantScope, organisationId: string) {
    return db.prisma.organisation.count({ where: { ...scope, id: organisationId } });
  },

  createStatusList(db: UnitOfWork, data: Prisma.StatusListUncheckedCreateInput) {
    return db.prisma.statusList.create({ data, select: { id: true } });
  },

  /** True when the issuer has a status list with free indices. */
  async hasOpenStatusList(db: UnitOfWork, scope: TenantScope, issuerId: string) {
    const count = await db.prisma.statusList.count({ where: { ...scope, issuerId, full: false } });
    return count > 0;
  },

  /** Number of configurations the issuer may use whose current version is active. */
  async countActiveConfigurations(db: UnitOfWork, scope: TenantScope, issuerId: string) {
    const grants = await db.prisma.issuerConfigurationGrant.findMany({
      where: { issuerId },
      select: { configurationId: true },
    });
    if (grants.length === 0) return 0;
    const configurations = await db.prisma.credentialConfiguration.findMany({
      where: { ...scope, id: { in: grants.map((g) => g.configurationId) } },
      select: { id: true, activeVersion: true },
    });
    if (configurations.length === 0) return 0;
    return db.prisma.credentialConfigurationVersion.count({
      where: {
        status: "active",
        OR: configurations.map((c) => ({ configurationId: c.id, version: c.activeVersion })),
      },
    });
  },
};
