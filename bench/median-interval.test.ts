// The sign test's interval for a median: its coverage is exact binomial arithmetic, so the tests check it
// against values worked out by hand, and that an outlier moves the interval by one place only.
import { describe, expect, it } from "vitest";
import { medianInterval } from "./median-interval";

describe("medianInterval", () => {
  it("has no 95% interval below 6 values (5 give 1 − 2/32 = 93.75% at best)", () => {
    expect(medianInterval([1, 2, 3, 4, 5])).toBeUndefined();
    expect(medianInterval([1, 2, 3, 4, 5], 0.9)).toEqual({ low: 1, high: 5, coverage: 0.9375 });
  });

  it("takes the extremes of 6 values (1 − 2/64 = 96.9%)", () => {
    expect(medianInterval([6, 1, 5, 2, 4, 3])).toEqual({ low: 1, high: 6, coverage: 1 - 2 / 64 });
  });

  it("moves one place in at 10 values (1 − 2·11/1024 = 97.9%; one more place would be 89.1%)", () => {
    const values = [1.02, 0.97, 1.04, 1.1, 0.99, 1.01, 1.03, 1.06, 0.5, 1.08];
    expect(medianInterval(values)).toEqual({ low: 0.97, high: 1.08, coverage: 1 - 22 / 1024 });
  });

  it("an outlier widens the interval by one place, whatever its size", () => {
    const base = [1.0, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06, 1.07, 1.08, 1.09];
    const withOutlier = [...base.slice(0, 9), 50];
    expect(medianInterval(withOutlier)?.high).toBe(medianInterval(base)?.high);
  });
});
