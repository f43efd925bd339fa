import { describe, expect, it } from "vitest";
import { DEFAULT_DELIVERY_OPTIONS, nextAttemptAt, retryScheduleFor } from "./delivery-options";

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
