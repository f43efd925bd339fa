// The arithmetic of the whole-server instruction counts (bench/observability-instructions.ts).
import { describe, expect, it } from "vitest";
import { dumpTotal, projectedPerFlow } from "./instruction-counts";

describe("whole-server instruction counts", () => {
  it("reads a callgrind dump's total, and refuses a dump without one", () => {
    const dump =
      "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\nevents: Ir\nfn=(1) main\n0 12\ntotals: 58518829\n";
    expect(dumpTotal(dump)).toBe(58_518_829);
    expect(dumpTotal("events: Ir\nsummary: 42\n")).toBe(42);
    expect(() => dumpTotal("events: Ir\nfn=(1) main\n0 12\n")).toThrow(/no totals/);
  });

  it("takes the clock's work out of a slow window and shares it, and the scrapes, at the real rate", () => {
    // 100 flows in 50 s at 2 M/s of clock work: 100 M of the 1,100 M are the clock's.
    const window = { instructions: 1_100_000_000, seconds: 50, flows: 100 };
    // At 250 flows/s the clock's 2 M/s is 8,000 a flow; a 40 M scrape every 5 s is 32,000 a flow.
    expect(projectedPerFlow(window, 2_000_000, 40_000_000, 250, 5)).toBe(10_000_000 + 8_000 + 32_000);
    expect(projectedPerFlow(window, 0, 0, 250, 5)).toBe(11_000_000);
  });
});
