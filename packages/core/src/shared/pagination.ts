import { DomainError } from "./errors";

/** Cursor = the last id of the previous page (ids are time-ordered), wrapped so callers treat it as opaque. */
export function decodeCursor(cursor: string | undefined): string | undefined {
  if (!cursor) return undefined;
  const raw = Buffer.from(cursor, "base64url").toString("utf8");
  if (!/^[a-z]+_[0-9a-z]{26}$/.test(raw)) {
    throw new DomainError("ValidationFailed", "The cursor is not valid.", [
      { code: "InvalidCursor", target: "cursor", message: "Use the nextCursor of a previous page." },
    ]);
  }
  return raw;
}

export function encodeCursor(id: string): string {
  return Buffer.from(id, "utf8").toString("base64url");
}

/** Fetches limit+1 rows ordered by id and turns them into a page. */
export function toPage<T extends { id: string }, D>(rows: T[], limit: number, map: (row: T) => D) {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  return {
    data: items.map(map),
    nextCursor: hasMore ? encodeCursor(items[items.length - 1]!.id) : null,
  };
}
