import type { TTrustSource } from "@cred/contracts/trust-sources";
import { isCurrent, type RefreshError, type StoredList, serviceCount } from "./stored-lists";
import type { TrustSourceRow } from "./trust-source-repository";

export function storedListsOf(row: Pick<TrustSourceRow, "lists">): StoredList[] {
  return Array.isArray(row.lists) ? (row.lists as unknown as StoredList[]) : [];
}

/** pending (no good copy yet), current, stale (last refresh failed, good copy still current) or expired. */
export function trustSourceStatus(row: TrustSourceRow, at: Date): TTrustSource["status"] {
  const lists = storedListsOf(row);
  if (lists.length === 0) return "pending";
  if (!isCurrent(lists[0]!, at)) return "expired";
  return row.lastError ? "stale" : "current";
}

export function toTrustSourceDto(row: TrustSourceRow, at = new Date()): TTrustSource {
  return {
    id: row.id,
    kind: row.kind as TTrustSource["kind"],
    url: row.url,
    description: row.description,
    signerCertificates: row.signerCertificates,
    refreshIntervalSeconds: row.refreshIntervalSeconds,
    status: trustSourceStatus(row, at),
    lists: storedListsOf(row).map((list) => ({
      location: list.location,
      territory: list.territory,
      sequenceNumber: list.sequenceNumber,
      issuedAt: list.issuedAt,
      nextUpdate: list.nextUpdate,
      services: serviceCount(list),
      error: list.error,
    })),
    listsFetchedAt: row.listsFetchedAt?.toISOString() ?? null,
    nextUpdate: row.listsNextUpdate?.toISOString() ?? null,
    lastRefreshAt: row.lastRefreshAt?.toISOString() ?? null,
    lastError: (row.lastError as RefreshError | null) ?? null,
    nextRefreshAt: row.nextRefreshAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
