import { ZDashboardSummaryRequest, ZDashboardSummaryResponse } from "@cred/contracts/dashboard";
import { protectedProcedure, router } from "../rpc/trpc";
import { scopeOf } from "../shared/scope-of";
import { getDashboardSummary } from "./get-dashboard-summary";

/** Console-only (tRPC, no REST). */
export const dashboardRouter = router({
  summary: protectedProcedure
    .meta({ scopes: ["credentials.read", "verification.read", "issuers.read"] })
    .input(ZDashboardSummaryRequest)
    .output(ZDashboardSummaryResponse)
    .query(async ({ ctx, input }) => ({
      data: await getDashboardSummary(ctx.db, scopeOf(ctx), input.days),
    })),
});
