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
    data: { id: string; chainPem: string; privateKeyCipher: string; dnsName: string; uploaded: boolean },
  ) {
    const row = await db.prisma.verifierCertificate.upsert({
      where: { tenantId_environment: scope },
      create: { ...scope, ...data },
      update: { ...data, createdAt: new Date() },
    });
    db.afterCommit(() => caches.of(verifierIdentityCache).delete(verifierIdentityKey(scope)));
    return row;
  },
};
