"use client";
import { type QueryKey, useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useMemo, useState } from "react";

/**
 * Cursor paging for the core list procedures: `limit` 1–100 and `cursor` in, `{ data, nextCursor }` out,
 * items ordered oldest first by id.
 */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** Reads one page; `cursor` undefined = the first page. */
export type FetchPage<T> = (cursor: string | undefined, signal: AbortSignal) => Promise<Page<T>>;

export const MAX_PAGE_SIZE = 100;

/**
 * The page size of the lists: 100 (the procedures' maximum) unless the URL says `?pageSize=N` (1–100),
 * which lets a person (and the e2e tests) page through a handful of items.
 */
export function usePageSize(): number {
  const raw = Number(useSearchParams().get("pageSize"));
  return Number.isInteger(raw) && raw >= 1 && raw <= MAX_PAGE_SIZE ? raw : MAX_PAGE_SIZE;
}

/** What a paged list shows: the items so far and how to get more. */
export interface Paged<T> {
  items: T[];
  isPending: boolean;
  error: unknown;
  hasMore: boolean;
  isLoadingMore: boolean;
  loadMore: () => void;
}

/**
 * Pages of a list procedure, accumulated by "Load more". The key should be the procedure's
 * `infiniteQueryKey(input)`, so `invalidateQueries(trpc.<router>.pathFilter())` refreshes every loaded page.
 */
export function useCursorPages<T>({
  queryKey,
  fetchPage,
}: {
  queryKey: QueryKey;
  fetchPage: FetchPage<T>;
}): Paged<T> {
  const query = useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam, signal }) => fetchPage(pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last: Page<T>) => last.nextCursor ?? undefined,
  });
  const items = useMemo(() => query.data?.pages.flatMap((p) => p.data) ?? [], [query.data]);
  const { fetchNextPage, isFetchingNextPage } = query;
  return {
    items,
    isPending: query.isPending,
    error: query.error,
    hasMore: query.hasNextPage,
    isLoadingMore: isFetchingNextPage,
    loadMore: () => {
      if (!isFetchingNextPage) void fetchNextPage();
    },
  };
}

/** An unpaged list (e.g. `apiKeys.list`) in the same shape, so it renders with the same table. */
export function unpaged<T>(query: { data?: { data: T[] }; isPending: boolean; error: unknown }): Paged<T> {
  return {
    items: query.data?.data ?? [],
    isPending: query.isPending,
    error: query.error,
    hasMore: false,
    isLoadingMore: false,
    loadMore: () => {},
  };
}

/**
 * Every item of a list (for choosers such as a `<select>`), read page by page up to `maxPages` pages of 100.
 * `complete` is false when the cap cut the list short.
 */
export function useAllItems<T>({
  queryKey,
  fetchPage,
  maxPages = 20,
}: {
  queryKey: QueryKey;
  fetchPage: FetchPage<T>;
  maxPages?: number;
}) {
  return useQuery({
    queryKey: [...queryKey, "all-pages"],
    queryFn: async ({ signal }) => {
      const items: T[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < maxPages; i++) {
        const page = await fetchPage(cursor, signal);
        items.push(...page.data);
        if (!page.nextCursor) return { items, complete: true };
        cursor = page.nextCursor;
      }
      return { items, complete: false };
    },
  });
}

interface HeldPage<T> {
  cursor: string | undefined;
  page: Page<T>;
}
interface Tail<T> {
  pages: HeldPage<T>[];
  /** The walk reached the last page (nextCursor null). */
  complete: boolean;
  /** Pages at the start were let go to stay within `maxItems`. */
  droppedOlder: boolean;
}

/** Sequential page reads per refresh; a longer log is walked over several refreshes. */
const MAX_WALK_PER_REFRESH = 20;

/**
 * The newest items of an oldest-first list, newest first (the webhook delivery log). The procedure cannot
 * order newest first, so the hook walks the pages to the end (`nextCursor` null) and remembers each page's
 * cursor. Every refresh re-reads the held pages in parallel (one batched request, so status changes show)
 * and walks on from the last one, so new items arrive without walking from the start again. At most
 * `maxItems` are held: the oldest pages are let go first. The items are shown `pageSize` at a time,
 * newest first, with "Show older" for the next ones.
 */
export function useNewestFirst<T extends { id: string }>({
  queryKey,
  fetchPage,
  pageSize,
  maxItems = 1000,
  refetchInterval = 3_000,
}: {
  queryKey: QueryKey;
  fetchPage: FetchPage<T>;
  pageSize: number;
  maxItems?: number;
  refetchInterval?: number;
}): Paged<T> & { total: number; complete: boolean; droppedOlder: boolean } {
  const queryClient = useQueryClient();
  const key = [...queryKey, "newest-first"];
  const query = useQuery({
    queryKey: key,
    queryFn: async ({ signal }): Promise<Tail<T>> => {
      const held = queryClient.getQueryData<Tail<T>>(key)?.pages ?? [];
      const refreshed = await Promise.all(
        held.slice(0, -1).map(async ({ cursor }) => ({ cursor, page: await fetchPage(cursor, signal) })),
      );
      const pages = [...refreshed];
      let cursor = held.at(-1)?.cursor;
      let complete = false;
      for (let i = 0; i < MAX_WALK_PER_REFRESH; i++) {
        const page = await fetchPage(cursor, signal);
        pages.push({ cursor, page });
        if (!page.nextCursor) {
          complete = true;
          break;
        }
        cursor = page.nextCursor;
      }
      const maxPages = Math.max(1, Math.floor(maxItems / pageSize));
      const drop = Math.max(0, pages.length - maxPages);
      const droppedOlder = (queryClient.getQueryData<Tail<T>>(key)?.droppedOlder ?? false) || drop > 0;
      return { pages: pages.slice(drop), complete, droppedOlder };
    },
    // Keep walking quickly until the end is reached, then poll.
    refetchInterval: (q) => (q.state.data && !q.state.data.complete ? 100 : refetchInterval),
  });
  const newestFirst = useMemo(() => {
    const seen = new Set<string>();
    const items: T[] = [];
    for (const { page } of query.data?.pages ?? []) {
      for (const item of page.data) {
        if (seen.has(item.id)) continue;
        seen.add(item.id);
        items.push(item);
      }
    }
    return items.reverse();
  }, [query.data]);
  const [shown, setShown] = useState(pageSize);
  return {
    items: newestFirst.slice(0, shown),
    total: newestFirst.length,
    complete: query.data?.complete ?? false,
    droppedOlder: query.data?.droppedOlder ?? false,
    isPending: query.isPending,
    error: query.error,
    hasMore: newestFirst.length > shown,
    isLoadingMore: false,
    loadMore: () => setShown((n) => n + pageSize),
  };
}
