import type { UnitOfWork } from "@cred/db";
import type { TenantScope } from "../shared/principal";

/** Every Prisma call of the verifier-certificates slice (the read and the generation live in verification). */
export const verifierCertificateRepository = {
  /** Installs a certificate for the partition, replacing the current one (a new id marks the change). */
  replace(
    db: UnitOfWork,
    scope: TenantScope,
    data: { id: string; chainPem: string; privateKeyCipher: string; dnsName: string; uploaded: boolean },
  ) {
    return db.prisma.verifierCertificate.upsert({
      where: { tenantId_environment: scope },
      create: { ...scope, ...data },
      update: { ...data, createdAt: new Date() },
    });
  },
};
