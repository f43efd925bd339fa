import { z } from "zod";

/** A point in time: a `Date`, or a number of seconds since the epoch. */
export type Instant = Date | number;

/** Converts an `Instant` to whole epoch seconds, refusing numbers that look like milliseconds. */
export function toEpochSeconds(now: Instant): number {
  if (now instanceof Date) return Math.floor(now.getTime() / 1000);
  if (!Number.isFinite(now) || now < 0) throw new TypeError("now must be a non-negative number of seconds");
  if (now > 100_000_000_000) throw new TypeError("now looks like milliseconds; pass epoch seconds or a Date");
  return Math.floor(now);
}

/** A JWT NumericDate (RFC 7519 §2): seconds since the epoch, which need not be whole. */
export const ZNumericDate = z.number().nonnegative();
