// The alternated runs' rounds (`--rounds`): the order of the settings in each round, and the ratio per
// round with its median and spread, which one noisy run of a setting does not decide.
import { describe, expect, it } from "vitest";
import {
  poolRounds,
  roundRatios,
  roundRatioValues,
  type SettingRun,
  serverCpuPerDriverCpu,
  settingsOrder,
} from "./alternated-settings";
import { parseArgs } from "./args";
import type { DriverResult } from "./driver";

const run = (setting: string, round: number, ops: number, cpuSeconds: number): SettingRun => ({
  setting,
  round,
  flow: "verification",
  result: { ops, throughput: ops / 5, errors: 0, latency: { p50: 1, p99: 2 } } as unknown as DriverResult,
  serverCpuSeconds: cpuSeconds,
});

describe("alternated rounds", () => {
  it("takes --rounds for --observability and --keys only, and checks it", () => {
    expect(parseArgs(["--observability", "--rounds", "5"]).rounds).toBe(5);
    expect(parseArgs(["--keys", "pkcs11", "--rounds", "3"]).rounds).toBe(3);
    expect(parseArgs(["--observability"]).rounds).toBeUndefined();
    expect(() => parseArgs(["--rounds", "3"])).toThrow(/alternated runs/);
    expect(() => parseArgs(["--observability", "--rounds", "0"])).toThrow(/bad --rounds/);
    expect(() => parseArgs(["--observability", "--rounds", "2.5"])).toThrow(/bad --rounds/);
  });

  it("alternates the settings' order round by round (ABBA)", () => {
    expect([1, 2, 3, 4].map((round) => settingsOrder(["off", "on"], round).join(" "))).toEqual([
      "off on",
      "on off",
      "off on",
      "on off",
    ]);
  });

  it("reports the median of the rounds' ratios and their spread; an outlier round moves only the spread", () => {
    const runs = [
      // 1.05×, 1.10×, then a round whose "off" server ran on a busy machine (0.60×), then 1.08×.
      run("off", 1, 1000, 2.0),
      run("on", 1, 1000, 2.1),
      run("on", 2, 1000, 2.2),
      run("off", 2, 1000, 2.0),
      run("off", 3, 500, 2.0),
      run("on", 3, 1000, 2.4),
      run("on", 4, 1000, 2.16),
      run("off", 4, 1000, 2.0),
    ];
    expect(roundRatios(runs, "off", "on")).toEqual([
      "verification: on / off, server CPU per flow round by round: median 1.065×, too few rounds for a 95% interval of the median (6 are needed) (0.600–1.100 over 4 rounds: 1.05, 1.10, 0.60, 1.08)",
    ]);
  });

  it("leaves out a round one setting did not complete", () => {
    const lines = roundRatios(
      [run("off", 1, 1000, 2), run("on", 1, 0, 1), run("off", 2, 1000, 2), run("on", 2, 1000, 3)],
      "off",
      "on",
    );
    expect(lines).toEqual([
      "verification: on / off, server CPU per flow round by round: median 1.500×, too few rounds for a 95% interval of the median (6 are needed) (1.500–1.500 over 1 round: 1.50)",
    ]);
  });

  it("gives the median's interval from 6 rounds on", () => {
    const cpu = [2.1, 2.0, 2.2, 2.04, 1.96, 2.3];
    const runs = cpu.flatMap((on, i) => [run("off", i + 1, 1000, 2), run("on", i + 1, 1000, on)]);
    expect(roundRatios(runs, "off", "on")).toEqual([
      "verification: on / off, server CPU per flow round by round: median 1.035×, the median's 96.9% interval 0.980–1.150× (0.980–1.150 over 6 rounds: 1.05, 1.00, 1.10, 1.02, 0.98, 1.15)",
    ]);
  });

  it("takes the machine's speed out: server CPU over the driver's (the same flows) and the probe's (the same pieces)", () => {
    // Each server ran in a window where the machine was this much slower; the driver's CPU shows it too.
    const slow = [1.0, 1.2, 0.9, 1.15, 1.05, 0.95, 1.1, 1.0, 1.25, 0.9, 1.0, 1.05];
    const runs = slow.map((speed, i): SettingRun => {
      const setting = i % 2 ? "on" : "off";
      const cost = setting === "on" ? 1.03 : 1;
      return {
        ...run(setting, Math.floor(i / 2) + 1, 1000, 2 * speed * cost),
        result: { ...run(setting, 1, 1000, 0).result, clientCpuMs: 500 * speed },
        probe: { pieces: 400, cpuMs: 200 * speed },
      };
    });
    const lines = roundRatios(runs, "off", "on");
    expect(lines[0]).toContain("over 6 rounds: 1.24, 1.32, 0.93, 0.94, 0.74, 1.08");
    expect(lines[1]).toBe(
      "verification: on / off, server CPU over the load driver's, round by round: median 1.030×, the median's 96.9% interval 1.030–1.030× (1.030–1.030 over 6 rounds: 1.03, 1.03, 1.03, 1.03, 1.03, 1.03)",
    );
    expect(lines[2]).toBe(
      "verification: on / off, server CPU per flow over the machine probe's per piece, round by round: median 1.030×, the median's 96.9% interval 1.030–1.030× (1.030–1.030 over 6 rounds: 1.03, 1.03, 1.03, 1.03, 1.03, 1.03)",
    );
    expect(roundRatioValues(runs, "off", "on", "verification", serverCpuPerDriverCpu)).toHaveLength(6);
    // Runs without the driver's CPU (older reports): no such line.
    expect(roundRatios([run("off", 1, 1000, 2), run("on", 1, 1000, 2.2)], "off", "on")).toHaveLength(1);
  });

  it("pools two runs' rounds as one run: the second's rounds follow the first's, each still pairing its own servers", () => {
    const first = [
      run("off", 1, 1000, 2),
      run("on", 1, 1000, 2.2),
      run("on", 2, 1000, 2.1),
      run("off", 2, 1000, 2),
    ];
    const second = [run("off", 1, 1000, 2), run("on", 1, 1000, 2.4)];
    const pooled = poolRounds([{ runs: first }, { runs: second }]);
    expect(pooled.map((r) => `${r.setting}${r.round}`)).toEqual([
      "off1",
      "on1",
      "on2",
      "off2",
      "off3",
      "on3",
    ]);
    expect(roundRatios(pooled, "off", "on")[0]).toContain("over 3 rounds: 1.10, 1.05, 1.20");
  });
});
