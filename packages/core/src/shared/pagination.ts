import { z } from "zod";
import { DomainError } from "./errors";

export const zListQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(25)
    .meta({ description: "Page size, 1–100.", example: 25 }),
  cursor: z
    .string()
    .max(200)
    .optional()
    .meta({ description: "Opaque cursor from the previous page's `nextCursor`." }),
});

export type ListQuery = z.infer<typeof zListQuery>;

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

export const collectionOf = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item).meta({ description: "This page's items, oldest first." }),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: "Cursor of the next page; null on the last page." }),
  });

export const resourceOf = <T extends z.ZodType>(item: T) => z.object({ data: item });
