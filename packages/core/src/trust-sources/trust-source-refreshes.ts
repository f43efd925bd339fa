import type { TListTrustSourceRefreshesRequest, TTrustSourceRefresh } from "@cred/contracts/trust-sources";
import type { UnitOfWork } from "@cred/db";
import { notFound } from "../shared/errors";
import { newId } from "../shared/ids";
import { decodeCursor, toPage } from "../shared/pagination";
import type { TenantScope } from "../shared/principal";
import { earliestNextUpdate, type RefreshError, type StoredList, serviceCount } from "./stored-lists";
import {
  trustSourceRefreshRepository as refreshes,
  type TrustSourceRefreshRow,
} from "./trust-source-refresh-repository";
import { trustSourceRepository as repo } from "./trust-source-repository";

export type RefreshTrigger = TTrustSourceRefresh["trigger"];

/** FetchFailed is a list that could not be had; every other code a list that was had and refused. */
function outcomeOf(error: RefreshError | null): TTrustSourceRefresh["outcome"] {
  if (!error) return "ok";
  return error.code === "FetchFailed" ? "failed" : "refused";
}

/**
 * Records one refresh attempt of a trust source (in the caller's transaction): `lists` is the copy in use
 * after it (the new copy when `error` is null, the kept one otherwise), `fetched` the lists this attempt
 * produced (for a LoTL whose own list verified, the pointed-to lists that failed carry their error).
 */
export function recordTrustSourceRefresh(
  db: UnitOfWork,
  scope: TenantScope,
  attempt: {
    trustSourceId: string;
    at: Date;
    trigger: RefreshTrigger;
    error: RefreshError | null;
    lists: readonly StoredList[];
  },
): Promise<void> {
  const main = attempt.lists[0];
  return refreshes.record(db, {
    id: newId("tsr"),
    ...scope,
    trustSourceId: attempt.trustSourceId,
    attemptedAt: attempt.at,
    trigger: attempt.trigger,
    outcome: outcomeOf(attempt.error),
    reasonCode: attempt.error?.code ?? null,
    reasonMessage: attempt.error?.message ?? null,
    sequenceNumber: main?.sequenceNumber ?? null,
    listIssuedAt: main?.issuedAt ? new Date(main.issuedAt) : null,
    listNextUpdate: earliestNextUpdate(attempt.lists),
    services: attempt.lists.reduce((n, list) => n + serviceCount(list), 0),
    lastGoodCopyKept: attempt.error !== null && attempt.lists.length > 0,
    failedLists: attempt.error
      ? []
      : attempt.lists
          .slice(1)
          .flatMap((list) =>
            list.error
              ? [{ location: list.location, code: list.error.code, message: list.error.message }]
              : [],
          ),
  });
}

function toRefreshDto(row: TrustSourceRefreshRow): TTrustSourceRefresh {
  return {
    id: row.id,
    attemptedAt: row.attemptedAt.toISOString(),
    trigger: row.trigger as TTrustSourceRefresh["trigger"],
    outcome: row.outcome as TTrustSourceRefresh["outcome"],
    reason: row.reasonCode ? { code: row.reasonCode, message: row.reasonMessage ?? "" } : null,
    sequenceNumber: row.sequenceNumber,
    issuedAt: row.listIssuedAt?.toISOString() ?? null,
    nextUpdate: row.listNextUpdate?.toISOString() ?? null,
    services: row.services,
    lastGoodCopyKept: row.lastGoodCopyKept,
    failedLists: Array.isArray(row.failedLists)
      ? (row.failedLists as TTrustSourceRefresh["failedLists"])
      : [],
  };
}

/** TrustSources_ListRefreshes: a live trust source's recorded refresh attempts, newest first. */
export async function listTrustSourceRefreshes(
  db: UnitOfWork,
  scope: TenantScope,
  input: TListTrustSourceRefreshesRequest,
) {
  const beforeId = decodeCursor(input.cursor);
  if (!(await repo.findById(db, scope, input.trustSourceId))) throw notFound("The trust source");
  const rows = await refreshes.list(db, scope, input.trustSourceId, { beforeId, take: input.limit + 1 });
  return toPage(rows, input.limit, toRefreshDto);
}
