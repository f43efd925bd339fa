import type { UnitOfWork } from "@cred/db";

/**
 * What the wallet-facing metadata of an issuer reads as stored now, not from the process caches: the
 * configurations it is granted with their active versions (its row with its keys, which display and
 * encryption settings change: `issuerRepository.findByIdWithKeys` of the issuers slice). Wallet side:
 * keyed by the issuer id of the URL (no tenant known there).
 */
export const issuerMetadataRepository = {
  /** The configurations the issuer is granted, in id order, and their active versions. */
  async grantedConfigurations(db: UnitOfWork, issuerId: string) {
    const grants = await db.prisma.issuerConfigurationGrant.findMany({ where: { issuerId } });
    const configurations = await db.prisma.credentialConfiguration.findMany({
      where: { id: { in: grants.map((g) => g.configurationId) } },
      orderBy: { id: "asc" },
    });
    const activeVersions = await db.prisma.credentialConfigurationVersion.findMany({
      where: { configurationId: { in: configurations.map((c) => c.id) }, status: "active" },
    });
    return { configurations, activeVersions };
  },
};
