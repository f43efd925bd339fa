import type { UnitOfWork } from "@cred/db";
import type { TenantScope } from "../shared/principal";

/** Counts and creation times for the console dashboard, always within one tenant and environment. */
export const dashboardRepository = {
  async totals(db: UnitOfWork, scope: TenantScope) {
    const [
      organisations,
      issuers,
      activeIssuers,
      credentialConfigurations,
      verificationPolicies,
      webhooks,
      credentials,
      issuanceTransactions,
      verificationSessions,
      verifiedSessions,
    ] = await Promise.all([
      db.prisma.organisation.count({ where: scope }),
      db.prisma.issuer.count({ where: scope }),
      db.prisma.issuer.count({ where: { ...scope, status: "active" } }),
      db.prisma.credentialConfiguration.count({ where: scope }),
      db.prisma.verificationPolicy.count({ where: scope }),
      db.prisma.webhookSubscription.count({ where: { ...scope, deletedAt: null } }),
      db.prisma.credential.count({ where: scope }),
      db.prisma.issuanceTransaction.count({ where: scope }),
      db.prisma.verificationSession.count({ where: scope }),
      db.prisma.verificationSession.count({ where: { ...scope, status: "verified" } }),
    ]);
    return {
      organisations,
      issuers,
      activeIssuers,
      credentialConfigurations,
      verificationPolicies,
      webhooks,
      credentials,
      issuanceTransactions,
      verificationSessions,
      verifiedSessions,
    };
  },

  async createdSince(db: UnitOfWork, scope: TenantScope, since: Date) {
    const where = { ...scope, createdAt: { gte: since } };
    const select = { createdAt: true } as const;
    const [issuances, credentials, verifications] = await Promise.all([
      db.prisma.issuanceTransaction.findMany({ where, select }),
      db.prisma.credential.findMany({ where, select }),
      db.prisma.verificationSession.findMany({ where, select }),
    ]);
    return { issuances, credentials, verifications };
  },
};
