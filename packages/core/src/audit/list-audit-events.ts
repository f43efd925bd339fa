import type { TAuditEvent, TListAuditEventsRequest } from "@cred/contracts/audit-events";
import type { UnitOfWork } from "@cred/db";
import { type AuditEventRow, auditRepository } from "../shared/audit-repository";
import { decodeCursor, toPage } from "../shared/pagination";
import type { TenantScope } from "../shared/principal";
import { integrityOf } from "./audit-integrity";

function toAuditEvent(row: AuditEventRow, integrity: TAuditEvent["integrity"]["state"]): TAuditEvent {
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

/** AuditEvents_List: the caller's partition, newest first, each event with its chain check. */
export async function listAuditEvents(db: UnitOfWork, scope: TenantScope, input: TListAuditEventsRequest) {
  const rows = (await auditRepository.list(
    db,
    scope,
    {
      actorId: input.actorId,
      operation: input.operation,
      targetId: input.targetId,
      outcome: input.outcome,
      from: input.from !== undefined ? new Date(input.from) : undefined,
      to: input.to !== undefined ? new Date(input.to) : undefined,
    },
    { beforeId: decodeCursor(input.cursor), take: input.limit + 1 },
  )) as AuditEventRow[];
  const integrity = await integrityOf(db, scope.tenantId, rows.slice(0, input.limit));
  return toPage(rows, input.limit, (row) => toAuditEvent(row, integrity.get(row.id) ?? "pending"));
}
