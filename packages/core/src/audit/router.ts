import {
  ZAuditEventCollection,
  ZAuditEventExport,
  ZExportAuditEventsRequest,
  ZListAuditEventsRequest,
} from "@cred/contracts/audit-events";
import { protectedProcedure, router } from "../rpc/trpc";
import { scopeOf } from "../shared/scope-of";
import { exportAuditEvents } from "./export-audit-events";
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
  export: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/management/audit-events/export",
        operationId: "AuditEvents_Export",
        summary: "Export audit events",
        description:
          "The events AuditEvents_List would list with the same filters, all of them, oldest first (chain order), as newline-delimited JSON: one event per line, in the List's item shape. The export ends at the newest event when it began; events recorded meanwhile are the next export's. An extension of the contract; docs/api/audit-events.md.",
        tags: ["AuditEvents"],
        successDescription: "One audit event per line (`application/x-ndjson`), oldest first.",
      },
      scopes: ["audit.read"],
      errorStatuses: [400, 401, 403, 429],
      responseMediaType: "application/x-ndjson",
    })
    .input(ZExportAuditEventsRequest)
    .output(ZAuditEventExport)
    .query(({ ctx, input }) => exportAuditEvents(ctx.db, scopeOf(ctx), input)),
});
