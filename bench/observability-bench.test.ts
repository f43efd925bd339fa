// `pnpm bench --observability`: its option and the on/off comparison it prints.
import { describe, expect, it } from "vitest";
import { parseArgs } from "./args";
import type { DriverResult } from "./driver";
import { budgetVerdict, observabilityRatios } from "./observability-bench";

const result = (ops: number, throughput: number, p99: number) =>
  ({ ops, throughput, errors: 0, latency: { p50: p99 / 2, p99 } }) as unknown as DriverResult;

describe("pnpm bench --observability", () => {
  it("is a run of its own, not combined with the topology", () => {
    expect(parseArgs(["--observability"]).observability).toBe(true);
    expect(parseArgs([]).observability).toBe(false);
    expect(() => parseArgs(["--observability", "--db", "postgres", "--api-processes", "1,2"])).toThrow(
      /pick one/,
    );
  });

  it("pools each setting's rounds: CPU per flow over all flows, throughput and p99 as means", () => {
    const lines = observabilityRatios([
      { setting: "off", round: 1, flow: "issuance", result: result(1000, 100, 10), serverCpuSeconds: 2 },
      { setting: "on", round: 1, flow: "issuance", result: result(1000, 90, 12), serverCpuSeconds: 2.2 },
      { setting: "off", round: 2, flow: "issuance", result: result(3000, 300, 10), serverCpuSeconds: 6 },
      { setting: "on", round: 2, flow: "issuance", result: result(1000, 90, 12), serverCpuSeconds: 2.2 },
    ]);
    // off: 8 s / 4000 flows = 2 ms; on: 4.4 s / 2000 flows = 2.2 ms.
    expect(lines).toEqual([
      "issuance: on / off: server CPU per flow 1.100× (2.000 → 2.200 ms), throughput 0.45×, p99 1.20×",
      "issuance: on / off, server CPU per flow round by round: median 1.100×, too few rounds for a 95% interval of the median (6 are needed) (1.100–1.100 over 2 rounds: 1.10, 1.10)",
      "issuance: the 5% budget is not resolved: too few rounds for a 95% interval",
    ]);
  });

  it("with --parts each, gives each part's ratio to off and the budget's verdict on both parts", () => {
    expect(parseArgs(["--observability", "--parts", "each"])).toMatchObject({
      observabilityEach: true,
      observabilityParts: ["metrics", "tracing"],
    });
    expect(parseArgs(["--observability"]).observabilityEach).toBe(false);
    const run = (setting: string, cpu: number) => ({
      setting,
      round: 1,
      flow: "issuance",
      result: result(1000, 100, 10),
      serverCpuSeconds: cpu,
    });
    const lines = observabilityRatios([
      run("off", 2),
      run("metrics", 2.02),
      run("tracing", 2.1),
      run("on", 2.2),
    ]);
    expect(lines.filter((l) => l.includes("server CPU per flow 1"))).toEqual([
      "issuance: metrics / off: server CPU per flow 1.010× (2.000 → 2.020 ms), throughput 1.00×, p99 1.00×",
      "issuance: tracing / off: server CPU per flow 1.050× (2.000 → 2.100 ms), throughput 1.00×, p99 1.00×",
      "issuance: on / off: server CPU per flow 1.100× (2.000 → 2.200 ms), throughput 1.00×, p99 1.00×",
    ]);
    expect(lines.at(-1)).toBe("issuance: the 5% budget is not resolved: too few rounds for a 95% interval");
  });

  it("says nothing for a flow one setting did not complete", () => {
    expect(
      observabilityRatios([
        { setting: "off", round: 1, flow: "verification", result: result(10, 1, 1), serverCpuSeconds: 1 },
        { setting: "on", round: 1, flow: "verification", result: result(0, 0, 0), serverCpuSeconds: 1 },
      ]),
    ).toEqual([]);
  });

  it("calls the 5% budget met or exceeded only when the whole interval of the median is on one side", () => {
    expect(budgetVerdict("issuance", [1.01, 0.98, 1.03, 1.0, 1.04, 0.99])).toEqual([
      "issuance: within the 5% budget (interval 0.980–1.040×)",
    ]);
    expect(budgetVerdict("issuance", [1.08, 1.12, 1.06, 1.1, 1.09, 1.07])).toEqual([
      "issuance: over the 5% budget (interval 1.060–1.120×)",
    ]);
    expect(budgetVerdict("verification", [1.01, 1.08, 0.97, 1.1, 1.0, 1.06])).toEqual([
      "verification: the 5% budget is not resolved by these rounds (interval 0.970–1.100× straddles it)",
    ]);
    expect(budgetVerdict("verification", [])).toEqual([]);
  });
});
