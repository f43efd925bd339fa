import { ZAuditEventCollection, ZListAuditEventsRequest } from "@cred/contracts/audit-events";
import { protectedProcedure, router } from "../rpc/trpc";
import { scopeOf } from "../shared/scope-of";
import { listAuditEvents } from "./list-audit-events";

export const auditEventsRouter = router({
  list: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/management/audit-events",
        operationId: "AuditEvents_List",
        summary: "List audit events",
        description:
          "Every state-changing call of this tenant's environment, newest first (an extension of the contract; docs/api/audit-events.md).",
        tags: ["AuditEvents"],
      },
      scopes: ["audit.read"],
      errorStatuses: [400, 401, 403, 429],
    })
    .input(ZListAuditEventsRequest)
    .output(ZAuditEventCollection)
    .query(({ ctx, input }) => listAuditEvents(ctx.db, scopeOf(ctx), input)),
});
