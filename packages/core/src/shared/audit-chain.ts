import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical-json";

/** The columns of an audit event that its hash covers (everything but the hash itself). */
export interface AuditEventContent {
  id: string;
  tenantId: string;
  environment: string;
  occurredAt: Date;
  actorType: string;
  actorId: string | null;
  actorName: string | null;
  operation: string;
  targetType: string | null;
  targetId: string | null;
  outcome: string;
  status: number;
  requestId: string;
  clientRequestId: string | null;
  sourceAddress: string | null;
  summary: unknown;
}

/**
 * SHA-256 (hex) over the event's place in the chain, its content and the previous event's hash, as
 * canonical JSON: altering any column, reordering events or removing one changes what the next link
 * expects. The first event of a tenant has `previousHash` null.
 */
export function auditEventHash(
  event: AuditEventContent,
  sequence: number,
  previousHash: string | null,
): string {
  const material = canonicalJson({
    id: event.id,
    tenantId: event.tenantId,
    environment: event.environment,
    occurredAt: event.occurredAt.toISOString(),
    actorType: event.actorType,
    actorId: event.actorId,
    actorName: event.actorName,
    operation: event.operation,
    targetType: event.targetType,
    targetId: event.targetId,
    outcome: event.outcome,
    status: event.status,
    requestId: event.requestId,
    clientRequestId: event.clientRequestId,
    sourceAddress: event.sourceAddress,
    summary: event.summary,
    sequence,
    previousHash,
  });
  return createHash("sha256").update(material).digest("hex");
}
