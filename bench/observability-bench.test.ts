// `pnpm bench --observability`: its option and the on/off comparison it prints.
import { describe, expect, it } from "vitest";
import { parseArgs } from "./args";
import type { DriverResult } from "./driver";
import { observabilityRatios } from "./observability-bench";

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
      "issuance: on / off, server CPU per flow round by round: median 1.100× (1.100–1.100 over 2 rounds: 1.10, 1.10)",
    ]);
  });

  it("says nothing for a flow one setting did not complete", () => {
    expect(
      observabilityRatios([
        { setting: "off", round: 1, flow: "verification", result: result(10, 1, 1), serverCpuSeconds: 1 },
        { setting: "on", round: 1, flow: "verification", result: result(0, 0, 0), serverCpuSeconds: 1 },
      ]),
    ).toEqual([]);
  });
});
