import { z } from "zod";

/** What every list request and response share: the page query, the page envelope, the single-resource envelope. */
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

export const collectionOf = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item).meta({ description: "This page's items, oldest first." }),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: "Cursor of the next page; null on the last page." }),
  });

export const resourceOf = <T extends z.ZodType>(item: T) => z.object({ data: item });

/** A page of a newest-first list (records: transactions, sessions, events); the cursor walks to older items. */
export const newestFirstCollectionOf = <T extends z.ZodType>(item: T, itemsDescription: string) =>
  z.object({
    data: z.array(item).meta({ description: itemsDescription }),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: "Cursor of the next (older) page; null on the last page." }),
  });
