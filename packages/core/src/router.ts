import { activityRouter } from "./activity/router";
import { apiKeysRouter } from "./api-keys/router";
import { auditEventsRouter } from "./audit/router";
import { credentialConfigurationsRouter } from "./credential-configurations/router";
import { credentialsRouter } from "./credentials/router";
import { dashboardRouter } from "./dashboard/router";
import { issuanceTransactionsRouter } from "./issuance/router";
import { issuersRouter } from "./issuers/router";
import { organisationsRouter } from "./organisations/router";
import { relyingPartiesRouter } from "./relying-parties";
import { router } from "./rpc/trpc";
import { staffRouter } from "./staff/router";
import { staffMembersRouter } from "./staff-members";
import { tenantsRouter } from "./tenants/router";
import { trustSourcesRouter } from "./trust-sources/router";
import { verificationsRouter } from "./verification/router";
import { verificationPoliciesRouter } from "./verification-policies/router";
import { verifierCertificatesRouter } from "./verifier-certificates/router";
import { webhookDeliveriesRouter, webhooksRouter } from "./webhooks/router";

export const appRouter = router({
  organisations: organisationsRouter,
  issuers: issuersRouter,
  credentialConfigurations: credentialConfigurationsRouter,
  verificationPolicies: verificationPoliciesRouter,
  verifications: verificationsRouter,
  verifierCertificates: verifierCertificatesRouter,
  relyingParties: relyingPartiesRouter,
  trustSources: trustSourcesRouter,
  webhooks: webhooksRouter,
  webhookDeliveries: webhookDeliveriesRouter,
  issuanceTransactions: issuanceTransactionsRouter,
  credentials: credentialsRouter,
  auditEvents: auditEventsRouter,
  activity: activityRouter,
  tenants: tenantsRouter,
  staffMembers: staffMembersRouter,
  // Console-only (tRPC, no OpenAPI meta):
  staff: staffRouter,
  apiKeys: apiKeysRouter,
  dashboard: dashboardRouter,
});

export type AppRouter = typeof appRouter;
