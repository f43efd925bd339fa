import type { TAuditEvent, TExportAuditEventsRequest } from "@cred/contracts/audit-events";
import type { UnitOfWork } from "@cred/db";
import { type AuditEventRow, auditRepository } from "../shared/audit-repository";
import type { TenantScope } from "../shared/principal";
import { auditFilterOf, toAuditEvent } from "./audit-event-dto";
import { integrityOf } from "./audit-integrity";

/** Events read (and checked against the chain) per query while exporting. */
export const EXPORT_BATCH = 500;

/**
 * AuditEvents_Export: the caller's partition, oldest first (chain order), in batches of EXPORT_BATCH read
 * by keyset as the consumer asks for them, so memory stays flat however many events there are. It
 * stops at the partition's newest event when the export began: events recorded meanwhile are the next
 * export's (`from`).
 */
export async function* exportAuditEvents(
  db: UnitOfWork,
  scope: TenantScope,
  input: TExportAuditEventsRequest,
  batchSize = EXPORT_BATCH,
): AsyncGenerator<TAuditEvent[]> {
  const upToId = await auditRepository.newestId(db, scope);
  if (upToId === null) return;
  const filter = auditFilterOf(input);
  let afterId: string | undefined;
  for (;;) {
    const rows = (await auditRepository.exportBatch(db, scope, filter, {
      afterId,
      upToId,
      take: batchSize,
    })) as AuditEventRow[];
    if (rows.length === 0) return;
    const integrity = await integrityOf(db, scope.tenantId, rows);
    yield rows.map((row) => toAuditEvent(row, integrity.get(row.id) ?? "pending"));
    if (rows.length < batchSize) return;
    afterId = rows[rows.length - 1]!.id;
  }
}
