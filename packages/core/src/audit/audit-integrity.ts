import type { TAuditEvent } from "@cred/contracts/audit-events";
import type { UnitOfWork } from "@cred/db";
import { auditEventHash } from "../shared/audit-chain";
import { type AuditEventRow, auditRepository } from "../shared/audit-repository";

type Integrity = TAuditEvent["integrity"]["state"];

/**
 * Each event's place in the chain, checked with what one more read brings: its own hash recomputed,
 * and its link to the event before it (the oldest event still kept is the chain's anchor after
 * retention; the newest must be the one the chain head names).
 */
export async function integrityOf(
  db: UnitOfWork,
  tenantId: string,
  rows: AuditEventRow[],
): Promise<Map<string, Integrity>> {
  const sealed = rows.filter((r) => r.sequence !== null);
  const result = new Map<string, Integrity>(rows.map((r) => [r.id, "pending"]));
  if (sealed.length === 0) return result;
  const previous = sealed.map((r) => (r.sequence as number) - 1).filter((s) => s > 0);
  const [links, ends] = await Promise.all([
    auditRepository.bySequence(db, tenantId, previous),
    auditRepository.chainEnds(db, tenantId),
  ]);
  const hashAt = new Map(links.map((l) => [l.sequence as number, l.hash]));
  for (const row of sealed) {
    const sequence = row.sequence as number;
    const ownIntact = auditEventHash(row, sequence, row.previousHash) === row.hash;
    const before = hashAt.get(sequence - 1);
    const anchor = sequence === 1 ? row.previousHash === null : sequence === ends.oldestSequence;
    const linked = before !== undefined ? before === row.previousHash : anchor;
    const headMatches = !ends.head || ends.head.sequence !== sequence || ends.head.hash === row.hash;
    result.set(row.id, ownIntact && linked && headMatches ? "intact" : "broken");
  }
  return result;
}

export interface ChainReport {
  tenantId: string;
  events: number;
  intact: boolean;
  /** The first position where the chain does not hold, with why. */
  brokenAt?: { sequence: number; reason: string };
}

/** Walks the tenant's whole chain in order (the CLI's `audit verify`). */
export async function verifyAuditChain(db: UnitOfWork, tenantId: string): Promise<ChainReport> {
  const { oldestSequence, head } = await auditRepository.chainEnds(db, tenantId);
  let expectedSequence = oldestSequence ?? 1;
  let previousHash: string | null | undefined;
  let events = 0;
  const broken = (sequence: number, reason: string): ChainReport => ({
    tenantId,
    events,
    intact: false,
    brokenAt: { sequence, reason },
  });
  for (;;) {
    const batch = await auditRepository.chainBatch(db, tenantId, expectedSequence - 1, 1000);
    if (batch.length === 0) break;
    for (const row of batch) {
      const sequence = row.sequence as number;
      if (sequence !== expectedSequence) return broken(expectedSequence, "an event is missing");
      if (previousHash !== undefined && row.previousHash !== previousHash) {
        return broken(sequence, "its link does not match the event before it");
      }
      if (sequence === 1 && row.previousHash !== null)
        return broken(1, "the first event names a predecessor");
      if (auditEventHash(row, sequence, row.previousHash) !== row.hash) {
        return broken(sequence, "its content does not match its hash");
      }
      previousHash = row.hash;
      expectedSequence++;
      events++;
    }
  }
  if (head && (head.sequence !== expectedSequence - 1 || head.hash !== previousHash)) {
    return broken(Math.min(head.sequence, expectedSequence), "the newest events are missing or altered");
  }
  return { tenantId, events, intact: true };
}
