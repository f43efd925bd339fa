import type { UnitOfWork } from "@cred/db";
import type { Caches } from "../shared/caches";
import type { TenantScope } from "../shared/principal";
import { verifierIdentityCache, verifierIdentityKey } from "../verification";

/** Every Prisma call of the verifier-certificates slice (the read and the generation live in verification). */
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
   * certificate in use, replacing any pending one.
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
  ) {
    return db.prisma.verifierCertificate.update({ where: { tenantId_environment: scope }, data });
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

  findRegistration(db: UnitOfWork, scope: TenantScope) {
    return db.prisma.verifierRegistrationCertificate.findUnique({ where: { tenantId_environment: scope } });
  },

  /** Installs the registration certificate, replacing any; drops this process's cached identity. */
  async replaceRegistration(
    db: UnitOfWork,
    caches: Caches,
    scope: TenantScope,
    data: {
      id: string;
      jwt: string;
      trustAnchorPem: string;
      registration: object;
      issuedAt: Date | null;
      expiresAt: Date | null;
    },
  ) {
    const row = await db.prisma.verifierRegistrationCertificate.upsert({
      where: { tenantId_environment: scope },
      create: { ...scope, ...data },
      update: { ...data, createdAt: new Date() },
    });
    db.afterCommit(() => caches.of(verifierIdentityCache).delete(verifierIdentityKey(scope)));
    return row;
  },

  /** Removes the registration certificate; false when there was none. */
  async deleteRegistration(db: UnitOfWork, caches: Caches, scope: TenantScope) {
    const { count } = await db.prisma.verifierRegistrationCertificate.deleteMany({ where: scope });
    db.afterCommit(() => caches.of(verifierIdentityCache).delete(verifierIdentityKey(scope)));
    return count > 0;
  },
};
