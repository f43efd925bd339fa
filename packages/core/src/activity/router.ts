import { ZActivityResponse, ZGetActivityRequest } from "@cred/contracts/activity";
import { protectedProcedure, router } from "../rpc/trpc";
import { scopeOf } from "../shared/scope-of";
import { getActivity } from "./get-activity";

export const activityRouter = router({
  get: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1.0/activity",
        operationId: "Activity_Get",
        summary: "Count issuance and verification activity over time",
        description:
          "Credentials issued and revoked, verification sessions verified and rejected, per UTC day of a range of at most 366 days (default: the last 30), for the whole environment and, with `groupBy`, per issuer or per verification policy. An extension of the contract (docs/api/activity.md).",
        tags: ["Activity"],
      },
      // Counts of both credentials and verification sessions: the caller must be able to read both.
      scopes: ["credentials.read", "verification.read"],
      scopeMatch: "all",
      errorStatuses: [400, 401, 403, 429],
    })
    .input(ZGetActivityRequest)
    .output(ZActivityResponse)
    .query(async ({ ctx, input }) => ({
      data: await getActivity(ctx.db, scopeOf(ctx), ctx.principal.issuerId, input),
    })),
});
