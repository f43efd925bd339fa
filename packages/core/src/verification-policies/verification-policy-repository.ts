import type { Prisma, UnitOfWork } from "@cred/db";
import type { TenantScope } from "../shared/principal";

export const verificationPolicyRepository = {
  create(db: UnitOfWork, data: Prisma.VerificationPolicyUncheckedCreateInput) {
    return db.prisma.verificationPolicy.create({ data });
  },
  findByIdentifier(db: UnitOfWork, scope: TenantScope, identifier: string) {
    return db.prisma.verificationPolicy.findUnique({
      where: { tenantId_environment_identifier: { ...scope, identifier } },
    });
  },
  /** The same row as `findByIdentifier`, by a single SQL statement of the unit of work (hot: every verification). */
  async findByIdentifierSql(db: UnitOfWork, scope: TenantScope, identifier: string) {
    const { rows } = await db.sql.query<VerificationPolicyRow>(
      `SELECT * FROM "VerificationPolicy" WHERE "tenantId" = $1 AND "environment" = $2 AND "identifier" = $3`,
      [scope.tenantId, scope.environment, identifier],
    );
    return rows[0] ?? null;
  },
  list(db: UnitOfWork, scope: TenantScope, page: { afterId?: string; take: number }) {
    return db.prisma.verificationPolicy.findMany({
      where: { ...scope, ...(page.afterId ? { id: { gt: page.afterId } } : {}) },
      select: { id: true, identifier: true, displayName: true, status: true },
      orderBy: { id: "asc" },
      take: page.take,
    });
  },
  /** Moves a policy from `from` to `to` atomically; false when it is missing or not in `from`. */
  async transition(db: UnitOfWork, scope: TenantScope, identifier: string, from: string, to: string) {
    const { count } = await db.prisma.verificationPolicy.updateMany({
      where: { ...scope, identifier, status: from },
      data: { status: to },
    });
    return count === 1;
  },

  /** Locks the policy row until the transaction ends (version changes queue); null when it is not in the scope. */
  async lockForUpdate(db: UnitOfWork, scope: TenantScope, identifier: string) {
    await db.prisma
      .$queryRaw`SELECT 1 FROM "VerificationPolicy" WHERE "tenantId" = ${scope.tenantId} AND "environment" = ${scope.environment} AND "identifier" = ${identifier} FOR UPDATE`;
    return this.findByIdentifier(db, scope, identifier);
  },
  addVersion(db: UnitOfWork, data: Prisma.VerificationPolicyVersionUncheckedCreateInput) {
    return db.prisma.verificationPolicyVersion.create({ data });
  },
  /** Versions of one (already tenant-checked) policy, oldest first. */
  versionsOf(db: UnitOfWork, policyId: string) {
    return db.prisma.verificationPolicyVersion.findMany({
      where: { policyId },
      orderBy: { version: "asc" },
    });
  },
  /**
   * Makes `version` the active one: it becomes `active` (activated `at`), every other `superseded`, and
   * its content is copied onto the policy row (what new verifications read). Null when it does not exist.
   */
  async activate(db: UnitOfWork, scope: TenantScope, policyId: string, version: number, at: Date) {
    const chosen = await db.prisma.verificationPolicyVersion.findUnique({
      where: { policyId_version: { policyId, version } },
    });
    if (!chosen) return null;
    await db.prisma.verificationPolicyVersion.updateMany({
      where: { policyId, version: { not: version }, status: "active" },
      data: { status: "superseded" },
    });
    await db.prisma.verificationPolicyVersion.update({
      where: { id: chosen.id },
      data: { status: "active", activatedAt: at },
    });
    await db.prisma.verificationPolicy.updateMany({
      where: { id: policyId, ...scope },
      data: {
        activeVersion: version,
        displayName: chosen.displayName,
        purpose: chosen.purpose,
        rules: chosen.rules as Prisma.InputJsonValue,
      },
    });
    return db.prisma.verificationPolicy.findFirstOrThrow({ where: { id: policyId, ...scope } });
  },

  /** Which of `types` are the credentialType of a credential configuration in this partition. */
  async knownCredentialTypes(db: UnitOfWork, scope: TenantScope, types: string[]): Promise<Set<string>> {
    if (types.length === 0) return new Set();
    const rows = await db.prisma.credentialConfiguration.findMany({
      where: { ...scope, credentialType: { in: types } },
      select: { credentialType: true },
    });
    return new Set(rows.map((r) => r.credentialType));
  },
  /** Which of `ids` are issuers in this partition. */
  async existingIssuerIds(db: UnitOfWork, scope: TenantScope, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await db.prisma.issuer.findMany({
      where: { ...scope, id: { in: ids } },
      select: { id: true },
    });
    return new Set(rows.map((r) => r.id));
  },
  /**
   * Which of `ids` name registration certificates of this environment (a policy's
   * registrationCertificateIds), each with the relying party it is held for (null: the tenant's own).
   */
  async existingRegistrationCertificateIds(
    db: UnitOfWork,
    scope: TenantScope,
    ids: string[],
  ): Promise<Map<string, string | null>> {
    if (ids.length === 0) return new Map();
    const rows = await db.prisma.verifierRegistrationCertificate.findMany({
      where: { ...scope, id: { in: ids } },
      select: { id: true, relyingPartyId: true },
    });
    return new Map(rows.map((r) => [r.id, r.relyingPartyId]));
  },
  /** Whether this environment has the relying party (a policy's relyingPartyId). */
  async relyingPartyExists(db: UnitOfWork, scope: TenantScope, id: string | undefined): Promise<boolean> {
    if (!id) return false;
    return (await db.prisma.relyingParty.count({ where: { ...scope, id } })) > 0;
  },
};

export type VerificationPolicyVersionRow = Awaited<
  ReturnType<typeof verificationPolicyRepository.versionsOf>
>[number];
export type VerificationPolicyRow = NonNullable<
  Awaited<ReturnType<typeof verificationPolicyRepository.findByIdentifier>>
>;
