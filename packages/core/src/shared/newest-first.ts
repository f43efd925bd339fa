import { ID_CLOCK_SLACK_MS, idFloorAt } from "./ids";
import { decodeCursor } from "./pagination";

/**
 * Records (transactions, sessions) page newest first: keyset on the time-ordered id, descending. A
 * row's id is made by the process that writes it, a moment before its `createdAt`, so the id window of a
 * creation-time range is widened by ID_CLOCK_SLACK_MS and the exact range is applied to `createdAt` as well.
 */

export interface IdWindow {
  /** Only ids below this (the cursor, or the end of the creation window). */
  lt?: string;
  /** Only ids at or above this (the start of the creation window). */
  gte?: string;
}

/** The id range a newest-first page may read: below the cursor, within the creation window. */
export function newestFirstIdWindow(
  prefix: string,
  input: { cursor?: string; createdFrom?: string; createdTo?: string },
): IdWindow {
  const window: IdWindow = {};
  const before = decodeCursor(input.cursor);
  const createdToBound =
    input.createdTo !== undefined
      ? idFloorAt(prefix, Date.parse(input.createdTo) + ID_CLOCK_SLACK_MS)
      : undefined;
  const upper = [before, createdToBound].filter((v): v is string => v !== undefined).sort()[0];
  if (upper !== undefined) window.lt = upper;
  if (input.createdFrom !== undefined) {
    window.gte = idFloorAt(prefix, Date.parse(input.createdFrom) - ID_CLOCK_SLACK_MS);
  }
  return window;
}

/** The exact creation-time range, as a Prisma filter on `createdAt` (from inclusive, to exclusive). */
export function createdAtRange(input: { createdFrom?: string; createdTo?: string }) {
  if (input.createdFrom === undefined && input.createdTo === undefined) return undefined;
  return {
    ...(input.createdFrom !== undefined ? { gte: new Date(input.createdFrom) } : {}),
    ...(input.createdTo !== undefined ? { lt: new Date(input.createdTo) } : {}),
  };
}
