import type { UnitOfWork } from "@cred/db";
import type { AppDeps } from "../shared/context";
import { DomainError, notFound } from "../shared/errors";
import { emitEvent } from "../shared/outbox";
import type { TenantScope } from "../shared/principal";
import { fetchTrustSourceLists, RefreshFailure } from "./fetch-trust-source-lists";
import { earliestNextUpdate, type RefreshError, type StoredList } from "./stored-lists";
import { storedListsOf, toTrustSourceDto, trustSourceStatus } from "./trust-source-dto";
import { type RefreshTrigger, recordTrustSourceRefresh } from "./trust-source-refreshes";
import { trustSourceRepository as repo, type TrustSourceRow } from "./trust-source-repository";

type RefreshDeps = Pick<AppDeps, "config" | "metrics">;

const MIN_DELAY_MS = 60_000;

/** The next scheduled refresh after a success: the interval, or sooner when a list's NextUpdate comes first. */
function nextAfterSuccess(intervalSeconds: number, nextUpdate: Date | null, now: Date): Date {
  const byInterval = now.getTime() + intervalSeconds * 1000;
  const byList = nextUpdate ? nextUpdate.getTime() : byInterval;
  return new Date(Math.max(now.getTime() + MIN_DELAY_MS, Math.min(byInterval, byList)));
}

/** After a failure the refresh is retried after a tenth of the interval, at least a minute. */
function nextAfterFailure(intervalSeconds: number, now: Date): Date {
  return new Date(now.getTime() + Math.max(MIN_DELAY_MS, intervalSeconds * 100));
}

export type RefreshOutcome = { row: TrustSourceRow; error: RefreshError | null };

/**
 * Fetches and verifies a trust source's lists (outside any transaction), then records the outcome: on
 * success the new copy replaces the last good one; on failure the last good copy is kept (stale while its
 * NextUpdate has not passed), the error is stored and a `trust_source.refresh_failed` event is emitted.
 * Either way the attempt is recorded in the source's refresh history, in the same transaction.
 */
export async function refreshTrustSourceRow(
  db: UnitOfWork,
  deps: RefreshDeps,
  row: TrustSourceRow,
  trigger: RefreshTrigger,
  now = new Date(),
): Promise<RefreshOutcome> {
  const scope: TenantScope = {
    tenantId: row.tenantId,
    environment: row.environment as TenantScope["environment"],
  };
  let lists: StoredList[];
  try {
    lists = await fetchTrustSourceLists(deps.config, row, storedListsOf(row), now);
  } catch (failure) {
    if (!(failure instanceof RefreshFailure)) throw failure;
    const error = failure.error;
    const updated = await db.transaction(async (tx) => {
      const changed = await repo.update(tx, scope, row.id, {
        lastRefreshAt: now,
        lastError: error,
        nextRefreshAt: nextAfterFailure(row.refreshIntervalSeconds, now),
      });
      if (!changed) return null;
      await recordTrustSourceRefresh(tx, scope, {
        trustSourceId: row.id,
        at: now,
        trigger,
        error,
        lists: storedListsOf(changed),
      });
      await emitEvent(tx, scope, "trust_source.refresh_failed", {
        trustSourceId: row.id,
        url: row.url,
        status: trustSourceStatus(changed, now),
        code: error.code,
        message: error.message,
      });
      return changed;
    });
    deps.metrics.trustSourceRefreshed("failed", error.code);
    if (!updated) throw notFound("The trust source");
    return { row: updated, error };
  }
  const nextUpdate = earliestNextUpdate(lists);
  const updated = await db.transaction(async (tx) => {
    const changed = await repo.update(tx, scope, row.id, {
      lists,
      listsFetchedAt: now,
      listsNextUpdate: nextUpdate,
      lastRefreshAt: now,
      lastError: null,
      nextRefreshAt: nextAfterSuccess(row.refreshIntervalSeconds, nextUpdate, now),
    });
    if (changed) {
      await recordTrustSourceRefresh(tx, scope, {
        trustSourceId: row.id,
        at: now,
        trigger,
        error: null,
        lists,
      });
    }
    return changed;
  });
  deps.metrics.trustSourceRefreshed("succeeded");
  if (!updated) throw notFound("The trust source");
  return { row: updated, error: null };
}

/** The 422 a refused or unreachable list answers with (TrustSources_Create and _Refresh). */
export function trustListRefused(error: RefreshError): DomainError {
  return new DomainError("TrustListRefused", `The trusted list was refused: ${error.message}`, [
    { code: error.code, target: "url", message: error.message },
  ]);
}

/**
 * TrustSources_Refresh: refreshes now. A refused or unreachable list answers 422 TrustListRefused with
 * the reason, after recording it (the last good copy is kept).
 */
export async function refreshTrustSource(db: UnitOfWork, scope: TenantScope, deps: RefreshDeps, id: string) {
  const row = await repo.findById(db, scope, id);
  if (!row) throw notFound("The trust source");
  const outcome = await refreshTrustSourceRow(db, deps, row, "manual");
  if (outcome.error) throw trustListRefused(outcome.error);
  return toTrustSourceDto(outcome.row);
}

/**
 * The worker's sweep: refreshes the live sources whose scheduled refresh is due (up to `batch`), each
 * claimed first so that two workers do not fetch the same list. Returns how many ran and how many failed.
 */
export async function refreshDueTrustSources(
  deps: Pick<AppDeps, "config" | "metrics" | "database">,
  options: { batch?: number; now?: Date } = {},
): Promise<{ refreshed: number; failed: number }> {
  const now = options.now ?? new Date();
  const db = deps.database.root;
  const due = await repo.due(db, now, options.batch ?? 10);
  let refreshed = 0;
  let failed = 0;
  for (const row of due) {
    // Claimed for the time a fetch may take; the outcome sets the real next time.
    if (!(await repo.claimDue(db, row.id, row.nextRefreshAt, new Date(now.getTime() + 5 * MIN_DELAY_MS))))
      continue;
    const outcome = await refreshTrustSourceRow(db, deps, row, "schedule", now).catch(() => null);
    if (outcome) refreshed++;
    if (!outcome || outcome.error) failed++;
  }
  return { refreshed, failed };
}
