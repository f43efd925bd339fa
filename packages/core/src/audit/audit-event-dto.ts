import type { TAuditEvent, TExportAuditEventsRequest } from "@cred/contracts/audit-events";
import type { AuditEventRow, AuditListFilter } from "../shared/audit-repository";

/** An event as AuditEvents_List and AuditEvents_Export answer it, with its chain check. */
export function toAuditEvent(row: AuditEventRow, integrity: TAuditEvent["integrity"]["state"]): TAuditEvent {
  return {
    id: row.id,
    sequence: row.sequence,
    occurredAt: row.occurredAt.toISOString(),
    actor: { type: row.actorType as TAuditEvent["actor"]["type"], id: row.actorId, name: row.actorName },
    operation: row.operation,
    target: { type: row.targetType, id: row.targetId },
    outcome: row.outcome as TAuditEvent["outcome"],
    status: row.status,
    requestId: row.requestId,
    clientRequestId: row.clientRequestId,
    sourceAddress: row.sourceAddress,
    summary: row.summary as TAuditEvent["summary"],
    integrity: { state: integrity, hash: row.hash, previousHash: row.previousHash },
  };
}

/** The request's filters as the repository reads them. */
export function auditFilterOf(input: TExportAuditEventsRequest): AuditListFilter {
  return {
    actorId: input.actorId,
    operation: input.operation,
    targetId: input.targetId,
    outcome: input.outcome,
    from: input.from !== undefined ? new Date(input.from) : undefined,
    to: input.to !== undefined ? new Date(input.to) : undefined,
  };
}
