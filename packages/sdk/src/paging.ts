/** One page of a list operation: `{ data: [...], nextCursor }` (keyset paging; docs/api/conventions.md). */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/**
 * Every item of a paged list, page after page: `fetchPage(undefined)` reads the first page and
 * `fetchPage(cursor)` each next one until a page's `nextCursor` is null. Pages are read as the
 * iteration reaches them, so breaking out of a `for await` stops reading.
 */
export async function* paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.data;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}
