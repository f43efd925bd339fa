import type { UnitOfWork } from "@cred/db";
import type { Caches } from "../shared/caches";
import type { TenantScope } from "../shared/principal";
import { type VerifierKeyPlace, verifierIdentityCache, verifierIdentityKey } from "../verification";

/** Every Prisma call of the verifier-certificates slice (the read and the generation live in verification). */
/** A validated registration certificate as it is stored. */
interface RegistrationCertificateData {
  id: string;
  jwt: string;
  trustAnchorPem: string;
  registration: object;
  issuedAt: Date | null;
  expiresAt: Date | null;
}

export const verifierCertificateRepository = {
  /**
   * Installs a certificate for the partition, replacing the current one (a new id marks the change);
   * once committed, this process's cached verifier identity of the partition is dropped, so the next
   * request object is signed with the new chain.
   */
  async replace(
    db: UnitOfWork,
    caches: Caches,
    scope: TenantScope,
    data: {
      id: string;
      chainPem: string;
      privateKeyCipher: string | null;
      keyProvider: string | null;
      providerKeyRef: string | null;
      dnsName: string;
      uploaded: boolean;
    },
    options: { endPendingRequest?: boolean } = {},
  ) {
    // Installing the access certificate ends its request; another upload leaves a pending one waiting.
    const pending = options.endPendingRequest
      ? {
          pendingPrivateKeyCipher: null,
          pendingKeyProvider: null,
          pendingProviderKeyRef: null,
          pendingCsrPem: null,
          pendingCreatedAt: null,
        }
      : {};
    const row = await db.prisma.verifierCertificate.upsert({
      where: { tenantId_environment: scope },
      create: { ...scope, ...data },
      update: { ...data, ...pending, createdAt: new Date() },
    });
    db.afterCommit(() => caches.of(verifierIdentityCache).delete(verifierIdentityKey(scope)));
    return row;
  },

  /**
   * Keeps an access-certificate request (its key, sealed or held by a provider, and the CSR) beside the
   * certificate in use, replacing any pending one; answers where the replaced request's key is held.
   */
  setPendingRequest(
    db: UnitOfWork,
    scope: TenantScope,
    data: {
      pendingPrivateKeyCipher: string | null;
      pendingKeyProvider: string | null;
      pendingProviderKeyRef: string | null;
      pendingCsrPem: string;
      pendingCreatedAt: Date;
    },
  ): Promise<VerifierKeyPlace> {
    // The row is locked before the request it replaces is read: of two requests at once, the second
    // waits, then sees (and so can destroy) the first's key instead of leaving it unreferenced.
    return db.transaction(async (tx) => {
      const [replaced] = await tx.prisma.$queryRaw<VerifierKeyPlace[]>`
        SELECT "pendingKeyProvider" AS "keyProvider", "pendingProviderKeyRef" AS "providerKeyRef"
        FROM "VerifierCertificate"
        WHERE "tenantId" = ${scope.tenantId} AND "environment" = ${scope.environment} FOR UPDATE`;
      await tx.prisma.verifierCertificate.update({ where: { tenantId_environment: scope }, data });
      return replaced ?? { keyProvider: null, providerKeyRef: null };
    });
  },

  /** Every verifier certificate's key location across tenants (the operator's `issuer-keys list`). */
  listKeysAcrossTenants(db: UnitOfWork, filter: { tenantId?: string }) {
    return db.prisma.verifierCertificate.findMany({
      where: filter.tenantId ? { tenantId: filter.tenantId } : {},
      select: {
        id: true,
        tenantId: true,
        environment: true,
        keyProvider: true,
        providerKeyRef: true,
        privateKeyCipher: true,
        pendingKeyProvider: true,
        pendingProviderKeyRef: true,
        pendingPrivateKeyCipher: true,
        createdAt: true,
      },
      orderBy: [{ tenantId: "asc" }, { environment: "asc" }],
    });
  },

  /** The environment's default registration certificate (the singular operations). */
  findRegistration(db: UnitOfWork, scope: TenantScope) {
    return db.prisma.verifierRegistrationCertificate.findUnique({
      where: { tenantId_environment_defaultKey: { ...scope, defaultKey: "default" } },
    });
  },

  /** A registration certificate of this environment by id (default or added); null for a foreign one. */
  findRegistrationById(db: UnitOfWork, scope: TenantScope, id: string) {
    return db.prisma.verifierRegistrationCertificate.findFirst({ where: { ...scope, id } });
  },

  /** This environment's registration certificates (the default one too), by id, a page at a time. */
  listRegistrations(
    db: UnitOfWork,
    scope: TenantScope,
    page: { afterId?: string; take: number; relyingPartyId?: string },
  ) {
    return db.prisma.verifierRegistrationCertificate.findMany({
      where: {
        ...scope,
        ...(page.afterId ? { id: { gt: page.afterId } } : {}),
        ...(page.relyingPartyId ? { relyingPartyId: page.relyingPartyId } : {}),
      },
      orderBy: { id: "asc" },
      take: page.take,
    });
  },

  /** Adds a registration certificate beside the default one, for policies to name by id. */
  addRegistration(
    db: UnitOfWork,
    scope: TenantScope,
    data: RegistrationCertificateData & { relyingPartyId?: string },
  ) {
    return db.prisma.verifierRegistrationCertificate.create({
      data: { ...scope, ...data, defaultKey: null },
    });
  },

  /** Removes a registration certificate by id; false when this environment has none with it. */
  async deleteRegistrationById(db: UnitOfWork, caches: Caches, scope: TenantScope, id: string) {
    const { count } = await db.prisma.verifierRegistrationCertificate.deleteMany({ where: { ...scope, id } });
    db.afterCommit(() => caches.of(verifierIdentityCache).delete(verifierIdentityKey(scope)));
    return count > 0;
  },

  /** Installs the registration certificate, replacing any; drops this process's cached identity. */
  async replaceRegistration(
    db: UnitOfWork,
    caches: Caches,
    scope: TenantScope,
    data: RegistrationCertificateData,
  ) {
    const row = await db.prisma.verifierRegistrationCertificate.upsert({
      where: { tenantId_environment_defaultKey: { ...scope, defaultKey: "default" } },
      create: { ...scope, ...data },
      // Another certificate: its expiry gets its own notice.
      update: { ...data, createdAt: new Date(), expiryNotifiedAt: null },
    });
    db.afterCommit(() => caches.of(verifierIdentityCache).delete(verifierIdentityKey(scope)));
    return row;
  },

  /** Removes the registration certificate; false when there was none. */
  async deleteRegistration(db: UnitOfWork, caches: Caches, scope: TenantScope) {
    const { count } = await db.prisma.verifierRegistrationCertificate.deleteMany({
      where: { ...scope, defaultKey: "default" },
    });
    db.afterCommit(() => caches.of(verifierIdentityCache).delete(verifierIdentityKey(scope)));
    return count > 0;
  },

  /** Every verifier certificate in use, across tenants (the worker's expiry notices). */
  allInUse(db: UnitOfWork) {
    return db.prisma.verifierCertificate.findMany({
      select: { id: true, tenantId: true, environment: true, chainPem: true, expiryNotifiedFor: true },
      orderBy: { id: "asc" },
    });
  },

  /**
   * Records that the expiry of the certificate ending at `notAfter` was notified, only if no worker did
   * first (and the certificate was not replaced meanwhile): true when this call recorded it.
   */
  async markAccessExpiryNotified(db: UnitOfWork, id: string, notAfter: Date) {
    const { count } = await db.prisma.verifierCertificate.updateMany({
      where: { id, OR: [{ expiryNotifiedFor: null }, { expiryNotifiedFor: { not: notAfter } }] },
      data: { expiryNotifiedFor: notAfter },
    });
    return count === 1;
  },

  /** Registration certificates across tenants expiring by `until` whose expiry was not notified yet. */
  registrationsExpiringBy(db: UnitOfWork, until: Date, take: number) {
    return db.prisma.verifierRegistrationCertificate.findMany({
      where: { expiresAt: { lte: until }, expiryNotifiedAt: null },
      select: { id: true, tenantId: true, environment: true, registration: true, expiresAt: true },
      orderBy: { expiresAt: "asc" },
      take,
    });
  },

  /** Records a registration certificate's expiry notice, only if no worker did first: true when this call did. */
  async markRegistrationExpiryNotified(db: UnitOfWork, id: string, at: Date) {
    const { count } = await db.prisma.verifierRegistrationCertificate.updateMany({
      where: { id, expiryNotifiedAt: null },
      data: { expiryNotifiedAt: at },
    });
    return count === 1;
  },
};
