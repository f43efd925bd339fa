import { describe, expect, it } from "vitest";
import {
  DEFAULT_DELIVERY_OPTIONS,
  laterRetry,
  MAX_RETRY_AFTER_MS,
  nextAttemptAt,
  retryAfterMs,
  retryScheduleFor,
} from "./delivery-options";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe("retryScheduleFor", () => {
  it("nine attempts is the default schedule", () => {
    expect(retryScheduleFor(9)).toEqual(DEFAULT_DELIVERY_OPTIONS.retryScheduleMs);
  });

  it("fewer attempts keep the first delays; one attempt has no retry", () => {
    expect(retryScheduleFor(3)).toEqual([30_000, 2 * MINUTE]);
    expect(retryScheduleFor(1)).toEqual([]);
  });

  it("more attempts retry at the last delay (12 h) beyond the default's end", () => {
    const schedule = retryScheduleFor(11);
    expect(schedule).toHaveLength(10);
    expect(schedule.slice(0, 8)).toEqual(DEFAULT_DELIVERY_OPTIONS.retryScheduleMs);
    expect(schedule.slice(8)).toEqual([12 * HOUR, 12 * HOUR]);
  });

  it("the delivery fails after exactly maxAttempts attempts", () => {
    const options = { retryScheduleMs: retryScheduleFor(4), jitter: 0 };
    const now = new Date(0);
    expect([1, 2, 3, 4].map((attempt) => nextAttemptAt(attempt, options, now)?.getTime() ?? null)).toEqual([
      30_000,
      2 * MINUTE,
      10 * MINUTE,
      null,
    ]);
  });

  it("refuses fewer than one attempt", () => {
    expect(() => retryScheduleFor(0)).toThrow(RangeError);
    expect(() => retryScheduleFor(2.5)).toThrow(RangeError);
  });
});

describe("Retry-After", () => {
  const now = new Date("2026-11-22T12:00:00Z");

  it("reads delay-seconds and HTTP-dates, capped at a day", () => {
    expect(retryAfterMs("120", now)).toBe(120_000);
    expect(retryAfterMs(" 5 ", now)).toBe(5_000);
    expect(retryAfterMs("Sun, 22 Nov 2026 12:10:00 GMT", now)).toBe(10 * MINUTE);
    expect(retryAfterMs(String(7 * 24 * 3600), now)).toBe(MAX_RETRY_AFTER_MS);
  });

  it("ignores absent, unreadable, negative and past values", () => {
    for (const value of [undefined, "", "soon", "-5", "1.5", "0", "Sun, 22 Nov 2026 11:00:00 GMT"])
      expect(retryAfterMs(value, now), String(value)).toBeNull();
  });

  it("only ever moves a scheduled retry later, and never revives an exhausted schedule", () => {
    const scheduled = new Date(now.getTime() + 30_000);
    expect(laterRetry(scheduled, 3_600_000, now)).toEqual(new Date(now.getTime() + 3_600_000));
    expect(laterRetry(scheduled, 5_000, now)).toEqual(scheduled);
    expect(laterRetry(scheduled, null, now)).toEqual(scheduled);
    expect(laterRetry(null, 3_600_000, now)).toBeNull();
  });
});
