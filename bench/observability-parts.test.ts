// The alternated runs' newer options: what `--observability` turns on (`--parts`), the warm-up before a
// server's window is recorded (`--warmup`), recording side-by-side servers in bursts (`--bursts`), and
// the per-thread split of the server's CPU.
import { describe, expect, it } from "vitest";
import { type Measured, mergeMeasured, type SettingRun, threadsTable } from "./alternated-settings";
import { parseArgs } from "./args";

const latency = (p50: number, p99: number, count: number, max: number) => ({
  count,
  mean: p50,
  p50,
  p95: p99,
  p99,
  max,
});

const burst = (ops: number, elapsedMs: number, p99: number, cpuSeconds: number, main: number): Measured => ({
  result: {
    ops,
    errors: ops === 0 ? 1 : 0,
    errorSamples: ops === 0 ? ["boom"] : [],
    shed: 0,
    elapsedMs,
    throughput: (ops * 1000) / elapsedMs,
    latency: latency(p99 / 2, p99, ops, p99 * 2),
    steps: {},
    clientCpuMs: 100,
    exhausted: false,
    produced: [],
  },
  serverCpuSeconds: cpuSeconds,
  threads: { main: { user: main, system: 0.1 }, node: { user: cpuSeconds - main - 0.1, system: 0 } },
});

describe("alternated runs: parts, warm-up and bursts", () => {
  it("turns on metrics, tracing, both (the default) or nothing (an A/A check)", () => {
    expect(parseArgs(["--observability"]).observabilityParts).toEqual(["metrics", "tracing"]);
    expect(parseArgs(["--observability", "--parts", "metrics"]).observabilityParts).toEqual(["metrics"]);
    expect(parseArgs(["--observability", "--parts", "tracing,tracing"]).observabilityParts).toEqual([
      "tracing",
    ]);
    expect(parseArgs(["--observability", "--parts", "none"]).observabilityParts).toEqual([]);
    expect(() => parseArgs(["--observability", "--parts", "logs"])).toThrow(/--parts is/);
  });

  it("warms each server up for 12 s unless told otherwise, and checks --warmup and --bursts", () => {
    expect(parseArgs(["--observability"]).warmup).toBe(12);
    expect(parseArgs(["--keys", "pkcs11", "--warmup", "3"]).warmup).toBe(3);
    expect(() => parseArgs(["--observability", "--warmup", "-1"])).toThrow(/bad --warmup/);
    expect(parseArgs(["--observability", "--bursts", "6"]).bursts).toBe(6);
    expect(parseArgs(["--observability"]).bursts).toBeUndefined();
    expect(() => parseArgs(["--observability", "--bursts", "0"])).toThrow(/bad --bursts/);
    expect(() => parseArgs(["--bursts", "4"])).toThrow(/alternated runs/);
  });

  it("sums a server's bursts: operations, errors, CPU and threads added, throughput over the recorded time", () => {
    const merged = mergeMeasured([burst(300, 1000, 10, 0.6, 0.35), burst(100, 1000, 30, 0.25, 0.1)]);
    expect(merged.result.ops).toBe(400);
    expect(merged.result.elapsedMs).toBe(2000);
    expect(merged.result.throughput).toBe(200);
    // Latencies weighted by each burst's operations: (300 × 10 + 100 × 30) / 400.
    expect(merged.result.latency.p99).toBe(15);
    expect(merged.result.latency.count).toBe(400);
    expect(merged.result.latency.max).toBe(60);
    expect(merged.result.clientCpuMs).toBe(200);
    expect(merged.serverCpuSeconds).toBeCloseTo(0.85);
    expect(merged.threads.main!.user).toBeCloseTo(0.45);
    expect(merged.threads.main!.system).toBeCloseTo(0.2);
    expect(merged.threads.node!.user).toBeCloseTo(0.2);
    const failed = mergeMeasured([burst(0, 1000, 0, 0.1, 0.05)]);
    expect(failed.result.errors).toBe(1);
    expect(failed.result.errorSamples).toEqual(["boom"]);
  });

  it("splits the server's CPU per flow by thread, busiest thread first, system time in brackets", () => {
    const run = (setting: string, m: Measured): SettingRun => ({ setting, round: 1, flow: "issuance", ...m });
    const table = threadsTable([
      run("off", burst(1000, 5000, 10, 2.0, 1.2)),
      run("on", {
        ...burst(1000, 5000, 10, 2.2, 1.3),
        result: { ...burst(0, 5000, 0, 0, 0).result, ops: 1000 },
      }),
    ]);
    expect(table.split("\n")).toEqual([
      "| setting | round | flow | main | node |",
      "| --- | --- | --- | --- | --- |",
      "| off | 1 | issuance | 1.300 (0.100) | 0.700 (0.000) |",
      "| on | 1 | issuance | 1.400 (0.100) | 0.800 (0.000) |",
    ]);
    expect(threadsTable([])).toBe("");
  });
});
