import type { Environment } from "@cred/contracts/scopes";
import type { AppDeps } from "../shared/context";
import { emitEvent } from "../shared/outbox";
import { trustSourceRepository as repo } from "./trust-source-repository";

/**
 * The worker's sweep (docs/api/trust-sources.md): a trust source whose last good copy has a list past its
 * NextUpdate (no refresh succeeded in time) trusts nothing through that list; `trust_source.expired` says
 * so, once per lapsed copy. The notice is recorded on the row in the transaction that writes the event, by
 * a conditional update only one worker can win (and none once a refresh replaced the copy).
 */
export async function notifyExpiredTrustSources(
  deps: Pick<AppDeps, "database">,
  options: { now?: Date } = {},
): Promise<{ notified: number }> {
  const now = options.now ?? new Date();
  const db = deps.database.root;
  let notified = 0;
  for (const row of await repo.lapsedNotNotified(db, now)) {
    const nextUpdate = row.listsNextUpdate!;
    const scope = { tenantId: row.tenantId, environment: row.environment as Environment };
    const sent = await db.transaction(async (tx) => {
      if (!(await repo.markExpiryNotified(tx, row.id, nextUpdate))) return false;
      await emitEvent(tx, scope, "trust_source.expired", {
        trustSourceId: row.id,
        url: row.url,
        nextUpdate: nextUpdate.toISOString(),
      });
      return true;
    });
    if (sent) notified++;
  }
  return { notified };
}
