import { credentialConfigurationsRouter } from "./credential-configurations/router";
import { credentialsRouter } from "./credentials/router";
import { issuanceTransactionsRouter } from "./issuance/router";
import { issuersRouter } from "./issuers/router";
import { organisationsRouter } from "./organisations/router";
import { router } from "./trpc";
import { verificationPoliciesRouter } from "./verification-policies/router";
import { verificationsRouter } from "./verification/router";
import { webhookDeliveriesRouter, webhooksRouter } from "./webhooks/router";

export const appRouter = router({
  organisations: organisationsRouter,
  issuers: issuersRouter,
  credentialConfigurations: credentialConfigurationsRouter,
  verificationPolicies: verificationPoliciesRouter,
  verifications: verificationsRouter,
  webhooks: webhooksRouter,
  webhookDeliveries: webhookDeliveriesRouter,
  issuanceTransactions: issuanceTransactionsRouter,
  credentials: credentialsRouter,
});

export type AppRouter = typeof appRouter;
