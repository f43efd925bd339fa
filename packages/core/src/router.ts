import { organisationsRouter } from "./organisations/router";
import { router } from "./trpc";
import { verificationPoliciesRouter } from "./verification-policies/router";

export const appRouter = router({
  organisations: organisationsRouter,
  verificationPolicies: verificationPoliciesRouter,
});

export type AppRouter = typeof appRouter;
