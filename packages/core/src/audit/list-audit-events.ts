import type { TListAuditEventsRequest } from "@cred/contracts/audit-events";
import type { UnitOfWork } from "@cred/db";
import { type AuditEventRow, auditRepository } from "../shared/audit-repository";
import { decodeCursor, toPage } from "../shared/pagination";
import type { TenantScope } from "../shared/principal";
import { auditFilterOf, toAuditEvent } from "./audit-event-dto";
import { integrityOf } from "./audit-integrity";

/** AuditEvents_List: the caller's partition, newest first, each event with its chain check. */
export async function listAuditEvents(db: UnitOfWork, scope: TenantScope, input: TListAuditEventsRequest) {
  const rows = (await auditRepository.list(db, scope, auditFilterOf(input), {
    beforeId: decodeCursor(input.cursor),
    take: input.limit + 1,
  })) as AuditEventRow[];
  const integrity = await integrityOf(db, scope.tenantId, rows.slice(0, input.limit));
  return toPage(rows, input.limit, (row) => toAuditEvent(row, integrity.get(row.id) ?? "pending"));
}
