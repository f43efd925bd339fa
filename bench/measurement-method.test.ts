import { describe, expect, it } from "vitest";
import { measurementMethod } from "./alternated-settings";

describe("measurementMethod", () => {
  it("says the warm-up and that the servers ran one after the other", () => {
    expect(measurementMethod({ smoke: false, warmup: 60, bursts: undefined })).toBe(
      "a fresh server per setting and round, warmed up for 60 s before its window, one after the other, " +
        "the rounds alternating the settings' order (ABBA).",
    );
  });

  it("says when the servers ran side by side in bursts", () => {
    expect(measurementMethod({ smoke: false, warmup: 12, bursts: 4 })).toBe(
      "a fresh server per setting and round, a round's servers side by side, each warmed up for 12 s, " +
        "then each window recorded in 4 bursts taking turns (ABBA).",
    );
  });

  it("gives a smoke run's short warm-up and no bursts, as runAlternated does", () => {
    expect(measurementMethod({ smoke: true, warmup: 12, bursts: 4 })).toContain("warmed up for 0.3 s before");
  });
});
