import type { Database } from "@cred/db";
import { auditRepository } from "../shared/audit-repository";
import type { CoreConfig } from "../shared/context";

const DAY_MS = 24 * 3_600_000;

/**
 * The worker's sweep: seals what no process sealed (a process stopped between a call and its seal),
 * then purges events past `config.auditRetentionDays`, oldest positions first.
 */
export async function maintainAuditTrail(
  deps: { database: Database; config: Pick<CoreConfig, "auditRetentionDays"> },
  now = new Date(),
): Promise<{ sealed: number; purged: number }> {
  const db = deps.database.root;
  const before = new Date(now.getTime() - deps.config.auditRetentionDays * DAY_MS);
  let sealed = 0;
  let purged = 0;
  for (const tenantId of await auditRepository.tenantIds(db)) {
    // An idle tenant costs one index probe, not a transaction under its advisory lock.
    if (await auditRepository.hasUnsealed(db, tenantId))
      sealed += await auditRepository.sealAll(db, tenantId);
    purged += await auditRepository.purgeBefore(db, tenantId, before);
  }
  return { sealed, purged };
}
