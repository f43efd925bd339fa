import type { Db } from "@cred/db";
import type { TenantScope } from "../shared/principal";

/** Counts and creation times for the console dashboard, always within one tenant and environment. */
export const dashboardRepository = {
  async totals(db: Db, scope: TenantScope) {
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
      db.organisation.count({ where: scope }),
      db.issuer.count({ where: scope }),
      db.issuer.count({ where: { ...scope, status: "active" } }),
      db.credentialConfiguration.count({ where: scope }),
      db.verificationPolicy.count({ where: scope }),
      db.webhookSubscription.count({ where: { ...scope, deletedAt: null } }),
      db.credential.count({ where: scope }),
      db.issuanceTransaction.count({ where: scope }),
      db.verificationSession.count({ where: scope }),
      db.verificationSession.count({ where: { ...scope, status: "verified" } }),
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

  async createdSince(db: Db, scope: TenantScope, since: Date) {
    const where = { ...scope, createdAt: { gte: since } };
    const select = { createdAt: true } as const;
    const [issuances, credentials, verifications] = await Promise.all([
      db.issuanceTransaction.findMany({ where, select }),
      db.credential.findMany({ where, select }),
      db.verificationSession.findMany({ where, select }),
    ]);
    return { issuances, credentials, verifications };
  },
};
