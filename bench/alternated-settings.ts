// A/B runs of our issuance and verification flows under two or more server settings, alternated on fresh
// servers round by round, so a change in the machine's load shows between runs of one setting instead of
// between the settings. `pnpm bench --observability` (metrics and tracing off/on) and `pnpm bench --keys
// pkcs11` (issuer keys in software/in a PKCS#11 token) are runs of this kind. The figure they answer with:
// server CPU per flow, pooled over each setting's rounds.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchOptions } from "./args";
import type { DriverResult } from "./driver";
import { f } from "./format";
import { type ProbeReading, startMachineProbe } from "./machine-probe";
import { medianInterval } from "./median-interval";
import { type OursTarget, setupOurs, startOurs } from "./ours";
import {
  kindsComparison,
  kindsLine,
  perfAvailable,
  perfNodeArgs,
  perfSymbolsOf,
  recordPerf,
  samplesByKind,
  symbolDifferences,
} from "./perf-kinds";
import { type CpuTimes, sampleProcess } from "./processes";
import { AREAS, profileShares } from "./profile-shares";
import { runDriver } from "./run-driver";

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const FLOWS = ["issuance", "verification"] as const;
const log = (line: string) => process.stderr.write(`${line}\n`);

export interface SettingRun {
  setting: string;
  round: number;
  flow: string;
  result: DriverResult;
  serverCpuSeconds: number;
  /** The server's CPU seconds over the recorded window by thread name, user and system apart. */
  threads?: Threads;
  /** The machine probe's pieces and CPU over the same window (machine-probe.ts). */
  probe?: ProbeReading;
}

/** What one setting's server gets; `finished` returns notes once the server stopped. */
export interface SettingStart {
  env?: Record<string, string>;
  /** More of the Issuers_Create body for the bench's issuer (e.g. its key custody). */
  issuer?: Record<string, unknown>;
  /** Started beside the server (e.g. a scraper): `stopping` runs before the server stops, `finished` after. */
  beside?: (baseUrl: string) => { stopping(): Promise<void>; finished(): Promise<string[]> };
}

export function settingsTable(runs: SettingRun[]): string {
  const header = ["setting", "round", "flow", "flows/s", "p50 ms", "p99 ms", "errors", "server CPU ms/flow"];
  const rows = runs.map((r) => [
    r.setting,
    String(r.round),
    r.flow,
    f(r.result.throughput),
    f(r.result.latency.p50),
    f(r.result.latency.p99),
    String(r.result.errors),
    f(r.result.ops ? (r.serverCpuSeconds * 1000) / r.result.ops : Number.NaN, 3),
  ]);
  return [header, header.map(() => "---"), ...rows].map((r) => `| ${r.join(" | ")} |`).join("\n");
}

/**
 * The server's CPU per flow by thread (ms, user + system, the system part in brackets): where a setting's
 * extra CPU goes — the request thread, the embedded database's thread, V8's GC and compiler workers.
 */
export function threadsTable(runs: SettingRun[]): string {
  const totals = new Map<string, number>();
  for (const r of runs)
    for (const [name, t] of Object.entries(r.threads ?? {}))
      totals.set(name, (totals.get(name) ?? 0) + t.user + t.system);
  const names = [...totals].sort((a, b) => b[1] - a[1]).map(([name]) => name);
  if (names.length === 0) return "";
  const header = ["setting", "round", "flow", ...names];
  const rows = runs.map((r) => [
    r.setting,
    String(r.round),
    r.flow,
    ...names.map((name) => {
      const t = r.threads?.[name];
      if (!t || !r.result.ops) return "–";
      return `${f(((t.user + t.system) * 1000) / r.result.ops, 3)} (${f((t.system * 1000) / r.result.ops, 3)})`;
    }),
  ]);
  return [header, header.map(() => "---"), ...rows].map((r) => `| ${r.join(" | ")} |`).join("\n");
}

/** Per flow, `other` against `base` with each setting's runs pooled: server CPU per flow, throughput, p99. */
export function settingRatios(runs: SettingRun[], base: string, other: string): string[] {
  return FLOWS.flatMap((flow) => {
    const pooled = (setting: string) => {
      const of = runs.filter((r) => r.flow === flow && r.setting === setting && r.result.ops > 0);
      if (of.length === 0) return undefined;
      const ops = of.reduce((a, r) => a + r.result.ops, 0);
      const serverCpuMs = of.reduce((a, r) => a + r.serverCpuSeconds, 0) * 1000;
      return {
        cpuPerFlow: serverCpuMs / ops,
        throughput: of.reduce((a, r) => a + r.result.throughput, 0) / of.length,
        p99: of.reduce((a, r) => a + r.result.latency.p99, 0) / of.length,
        driverCpuMs: of.reduce((a, r) => a + (r.result.clientCpuMs ?? 0), 0),
        serverCpuMs,
      };
    };
    const b = pooled(base);
    const o = pooled(other);
    if (!b || !o) return [];
    return [
      `${flow}: ${other} / ${base}: server CPU per flow ${f(o.cpuPerFlow / b.cpuPerFlow, 3)}× ` +
        `(${f(b.cpuPerFlow, 3)} → ${f(o.cpuPerFlow, 3)} ms), throughput ${f(o.throughput / b.throughput, 2)}×, ` +
        `p99 ${f(o.p99 / b.p99, 2)}×` +
        (b.driverCpuMs > 0 && o.driverCpuMs > 0
          ? `, server CPU over the load driver's ${f(o.serverCpuMs / o.driverCpuMs / (b.serverCpuMs / b.driverCpuMs), 3)}×`
          : ""),
    ];
  });
}

/** A server profile's busy time by area (profile-shares.ts): the shares hold on a busy machine too. */
function sharesLine(dir: string): string {
  const files = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((name) => name.endsWith(".cpuprofile"))
        .map((name) => path.join(dir, name))
    : [];
  if (files.length === 0) return "no server CPU profile written";
  const shares = profileShares(files);
  const cells = AREAS.map((area) => `${area} ${f(shares.share[area] * 100)}%`);
  return `profile (main thread, busy ${f(shares.busyMs / 1000)} s): ${cells.join(", ")}`;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** What a round's ratio compares: a run's figure, or undefined for a run that did not complete. */
export type RunMeasure = (run: SettingRun) => number | undefined;

/** The server's CPU per flow. */
export const serverCpuPerFlow: RunMeasure = (run) =>
  run.result.ops > 0 ? run.serverCpuSeconds / run.result.ops : undefined;

/**
 * The server's CPU over the load driver's over the same window. The driver runs the same flows in every
 * setting, so its CPU per flow should move only with the machine (on this VM, by ±10% from one window to
 * the next, the server's with it); the ratio of this figure between two settings is then their ratio of
 * server CPU per flow with the machine's speed in each window taken out. A setting that made the driver
 * dearer too would be understated: the machine probe's figure is the check (docs/performance.md, Session 30).
 */
export const serverCpuPerDriverCpu: RunMeasure = (run) =>
  run.result.ops > 0 && run.result.clientCpuMs > 0
    ? (run.serverCpuSeconds * 1000) / run.result.clientCpuMs
    : undefined;

/**
 * The server's CPU per flow over the machine probe's CPU per piece over the same window: the machine's
 * speed taken out by a fixed piece of work that talks to neither the server nor the driver.
 */
export const serverCpuPerProbeCpu: RunMeasure = (run) => {
  const perFlow = serverCpuPerFlow(run);
  return perFlow !== undefined && run.probe && run.probe.pieces > 0 && run.probe.cpuMs > 0
    ? perFlow / (run.probe.cpuMs / run.probe.pieces)
    : undefined;
};

/** The figures with the machine's speed taken out, and how the report names each. */
export const MACHINE_ADJUSTED: { name: string; measure: RunMeasure }[] = [
  { name: "server CPU over the load driver's", measure: serverCpuPerDriverCpu },
  { name: "server CPU per flow over the machine probe's per piece", measure: serverCpuPerProbeCpu },
];

/** Per round, `other`'s figure over `base`'s in that round (rounds one of them did not complete left out). */
export function roundRatioValues(
  runs: SettingRun[],
  base: string,
  other: string,
  flow: string,
  measure: RunMeasure = serverCpuPerFlow,
): number[] {
  const of = (setting: string, round: number) => {
    const run = runs.find((r) => r.flow === flow && r.setting === setting && r.round === round);
    return run && measure(run);
  };
  const rounds = [...new Set(runs.filter((r) => r.flow === flow).map((r) => r.round))].sort((a, b) => a - b);
  return rounds.flatMap((round) => {
    const b = of(base, round);
    const o = of(other, round);
    return b && o ? [o / b] : [];
  });
}

/**
 * The runs of several alternated runs of the same options as one (`tsx bench/pool-rounds.ts`): each run's
 * rounds numbered after the previous run's, so a round still pairs the servers that ran back to back.
 */
export function poolRounds(reports: { runs: SettingRun[] }[]): SettingRun[] {
  let offset = 0;
  return reports.flatMap(({ runs }) => {
    const pooled = runs.map((run) => ({ ...run, round: run.round + offset }));
    offset += Math.max(0, ...runs.map((run) => run.round));
    return pooled;
  });
}

/** "95% interval a–b" for the median of the ratios (median-interval.ts), or why there is none. */
function intervalText(ratios: number[]): string {
  const interval = medianInterval(ratios);
  return interval
    ? `the median's ${f(interval.coverage * 100, 1)}% interval ${f(interval.low, 3)}–${f(interval.high, 3)}×`
    : "too few rounds for a 95% interval of the median (6 are needed)";
}

/** "median m×, interval, (min–max over n rounds: …)" of a round's ratios. */
function ratiosText(ratios: number[]): string {
  return (
    `median ${f(median(ratios), 3)}×, ${intervalText(ratios)} ` +
    `(${f(Math.min(...ratios), 3)}–${f(Math.max(...ratios), 3)} over ${ratios.length} round${ratios.length === 1 ? "" : "s"}: ` +
    `${ratios.map((r) => f(r, 2)).join(", ")})`
  );
}

/**
 * Per flow, `other` against `base` round by round: each round's ratio of server CPU per flow (the two
 * settings ran back to back in that round), their median, a distribution-free interval for it, and their
 * spread; then the same with the machine's speed taken out (`MACHINE_ADJUSTED`), where the run measured
 * what it takes. One noisy run of a setting moves one round's ratio, not the median; the interval says
 * what the rounds can and cannot tell apart.
 */
export function roundRatios(runs: SettingRun[], base: string, other: string): string[] {
  return FLOWS.flatMap((flow) => {
    const ratios = roundRatioValues(runs, base, other, flow);
    if (ratios.length === 0) return [];
    return [
      `${flow}: ${other} / ${base}, server CPU per flow round by round: ${ratiosText(ratios)}`,
      ...MACHINE_ADJUSTED.flatMap(({ name, measure }) => {
        const adjusted = roundRatioValues(runs, base, other, flow, measure);
        return adjusted.length
          ? [`${flow}: ${other} / ${base}, ${name}, round by round: ${ratiosText(adjusted)}`]
          : [];
      }),
    ];
  });
}

/** The order of the settings in a round: as given in odd rounds, reversed in even ones (ABBA). */
export const settingsOrder = (settings: readonly string[], round: number) =>
  round % 2 === 1 ? [...settings] : [...settings].reverse();

export type Threads = Record<string, CpuTimes>;
export interface Measured {
  result: DriverResult;
  serverCpuSeconds: number;
  threads: Threads;
  probe?: ProbeReading;
}

type MachineProbe = ReturnType<typeof startMachineProbe>;

/** One driver job against a server, its CPU sampled over the driver's recorded window only. */
async function measure(
  options: BenchOptions,
  probe: MachineProbe,
  pid: number,
  target: OursTarget,
  flow: string,
  durationMs: number,
  warmupMs: number,
): Promise<Measured> {
  let sampler = sampleProcess(pid);
  let measured: { cpuSeconds: number; threads: Threads } | undefined;
  let probeWindow: Promise<() => Promise<ProbeReading>> | undefined;
  let probeReading: Promise<ProbeReading> | undefined;
  const result = await runDriver(
    {
      side: "ours",
      workload: flow,
      target,
      concurrency: options.concurrency,
      durationMs,
      warmupMs,
      // `--rate`: open loop at that arrival rate, the same load for every setting, instead of closed loop
      // at the concurrency (where a slower setting also runs at a lower load).
      ...(options.rate && { rate: options.rate }),
    },
    options.driverCpuProf,
    (mark) => {
      if (mark === "recording") {
        sampler.stop();
        sampler = sampleProcess(pid);
        probeWindow = probe.window();
        probeWindow.catch(() => undefined);
      } else {
        measured = sampler.stop();
        probeReading = probeWindow?.then((end) => end());
        probeReading?.catch(() => undefined);
      }
    },
  );
  measured ??= sampler.stop();
  return {
    result,
    serverCpuSeconds: measured.cpuSeconds,
    threads: measured.threads,
    // Without its probe a run still has its other figures.
    ...(probeReading && { probe: await probeReading.catch(() => undefined) }),
  };
}

/**
 * Bursts of one server summed into one measurement: operations, errors, CPU and threads added,
 * throughput over the recorded time, latencies the operation-weighted mean of the bursts' (an
 * approximation of the pooled percentiles).
 */
export function mergeMeasured(parts: Measured[]): Measured {
  const ops = parts.reduce((n, p) => n + p.result.ops, 0);
  const elapsedMs = parts.reduce((n, p) => n + p.result.elapsedMs, 0);
  const weighted = (pick: (m: Measured) => number) =>
    ops ? parts.reduce((n, p) => n + pick(p) * p.result.ops, 0) / ops : Number.NaN;
  const latency = Object.fromEntries(
    Object.keys(parts[0]!.result.latency).map((key) => [
      key,
      weighted((p) => p.result.latency[key as keyof DriverResult["latency"]] as number),
    ]),
  ) as unknown as DriverResult["latency"];
  latency.count = parts.reduce((n, p) => n + p.result.latency.count, 0);
  latency.max = Math.max(...parts.map((p) => p.result.latency.max));
  const threads: Threads = {};
  for (const p of parts)
    for (const [name, t] of Object.entries(p.threads)) {
      const sum = threads[name] ?? { user: 0, system: 0 };
      threads[name] = sum;
      sum.user += t.user;
      sum.system += t.system;
    }
  const first = parts[0]!.result;
  const probes = parts.flatMap((p) => (p.probe ? [p.probe] : []));
  return {
    result: {
      ...first,
      ops,
      errors: parts.reduce((n, p) => n + p.result.errors, 0),
      errorSamples: parts.flatMap((p) => p.result.errorSamples).slice(0, 5),
      shed: parts.reduce((n, p) => n + p.result.shed, 0),
      elapsedMs,
      throughput: elapsedMs ? (ops * 1000) / elapsedMs : 0,
      latency,
      clientCpuMs: parts.reduce((n, p) => n + p.result.clientCpuMs, 0),
    },
    serverCpuSeconds: parts.reduce((n, p) => n + p.serverCpuSeconds, 0),
    threads,
    ...(probes.length === parts.length && {
      probe: {
        pieces: probes.reduce((n, p) => n + p.pieces, 0),
        cpuMs: probes.reduce((n, p) => n + p.cpuMs, 0),
      },
    }),
  };
}

interface Started {
  setting: string;
  ours: Awaited<ReturnType<typeof startOurs>>;
  beside: ReturnType<NonNullable<SettingStart["beside"]>> | undefined;
  cpuProfDir: string | undefined;
  /** `--perf`: where the server's perf recording goes, and its end. */
  perf?: { dir: string; finished: Promise<void> };
  target?: OursTarget;
}

/**
 * Runs the flows once per setting and round, `--rounds` rounds (default 2). Each setting's server is
 * warmed up (`--warmup`) before its window is recorded. Without `--bursts`, one setting's server runs
 * after the other's, the rounds alternating the settings' order (A B, B A, …). With `--bursts K`, a
 * round starts every setting's server side by side and records each in K short bursts, taking turns
 * (A B B A …), so what the machine does over the minutes of a round falls on every setting alike.
 */
export async function runAlternated(
  options: BenchOptions,
  label: string,
  settings: readonly string[],
  start: (setting: string, round: number) => SettingStart,
): Promise<{ runs: SettingRun[]; notes: string[] }> {
  const flows = FLOWS.filter((id) => !options.only || options.only.includes(id));
  const rounds = options.smoke ? 1 : (options.rounds ?? 2);
  const durationMs = options.duration * 1000;
  const { warmupMs, bursts } = recordingPlan(options);
  const runs: SettingRun[] = [];
  const notes: string[] = [];
  if (options.perf && !perfAvailable())
    throw new Error("--perf needs Linux perf on the PATH (Debian: apt-get install linux-perf)");
  const perfSymbols = new Map<string, Map<string, number>[]>(settings.map((setting) => [setting, []]));

  const launch = async (setting: string, round: number): Promise<Started> => {
    const given = start(setting, round);
    log(`${label} ${setting}, round ${round}: starting our service (${options.db})…`);
    const resultsDir = (kind: string) =>
      path.join(HERE, "results", `${kind}-${label}-${setting}-${round}-${Date.now()}`);
    const cpuProfDir = options.cpuProf ? resultsDir("cpu") : undefined;
    const perfDir = options.perf ? resultsDir("perf") : undefined;
    if (perfDir) fs.mkdirSync(perfDir, { recursive: true });
    const ours = await startOurs({
      db: options.db,
      env: given.env,
      cpuProfDir,
      nodeArgs: [...(perfDir ? perfNodeArgs(perfDir) : []), ...options.serverNodeArgs],
      // `--server-log <file>`: each server's output, appended in the order the servers ran.
      logFile: options.serverLog && `${options.serverLog}.${label}-${setting}-${round}`,
    });
    if (cpuProfDir) notes.push(`${setting}, round ${round}: server CPU profile in ${cpuProfDir}`);
    const started: Started = { setting, ours, beside: given.beside?.(ours.service.baseUrl), cpuProfDir };
    if (perfDir)
      started.perf = {
        dir: perfDir,
        finished: recordPerf(ours.service.pid, path.join(perfDir, "perf.data")),
      };
    try {
      started.target = await setupOurs(ours.service.baseUrl, ours.apiKey, given.issuer);
    } catch (error) {
      await stop(started, round);
      throw error;
    }
    return started;
  };
  const stop = async ({ setting, ours, beside, cpuProfDir, perf }: Started, round: number) => {
    await beside?.stopping();
    await ours.stop();
    if (perf) {
      // perf writes its file once the server has exited; the server's symbol map is read, then removed.
      await perf.finished;
      try {
        const bySymbol = perfSymbolsOf(path.join(perf.dir, "perf.data"));
        const kinds = samplesByKind(bySymbol);
        perfSymbols.get(setting)!.push(bySymbol);
        notes.push(`${setting}, round ${round}: perf (CPU time, every thread) ${kindsLine(kinds)}`);
      } catch (error) {
        notes.push(
          `${setting}, round ${round}: perf report failed, this server is left out: ${String(error)}`,
        );
      } finally {
        fs.rmSync(`/tmp/perf-${ours.service.pid}.map`, { force: true });
      }
    }
    if (beside) notes.push(...(await beside.finished()).map((n) => `${setting}, round ${round}: ${n}`));
    if (cpuProfDir) notes.push(`${setting}, round ${round}: ${sharesLine(cpuProfDir)}`);
  };
  const record = (setting: string, round: number, flow: string, m: Measured) => {
    runs.push({ setting, round, flow, ...m });
    log(
      `  ${setting} ${flow}: ${f(m.result.throughput)}/s, p99 ${f(m.result.latency.p99)} ms, ${m.result.errors} errors, ` +
        `server CPU ${f(m.result.ops ? (m.serverCpuSeconds * 1000) / m.result.ops : Number.NaN, 3)} ms/flow`,
    );
  };

  // Started once for the whole run: its own code is warm before the first window.
  const probe = startMachineProbe();
  try {
    for (let round = 1; round <= rounds; round++) {
      if (!bursts) {
        for (const setting of settingsOrder(settings, round)) {
          const started = await launch(setting, round);
          try {
            for (const flow of flows)
              record(
                setting,
                round,
                flow,
                await measure(
                  options,
                  probe,
                  started.ours.service.pid,
                  started.target!,
                  flow,
                  durationMs,
                  warmupMs,
                ),
              );
          } finally {
            await stop(started, round);
          }
        }
        continue;
      }
      const servers: Started[] = [];
      try {
        for (const setting of settingsOrder(settings, round)) servers.push(await launch(setting, round));
        for (const flow of flows) {
          // Warm every server up first; a burst's own short warm-up only readies its fresh driver.
          for (const s of servers)
            await measure(options, probe, s.ours.service.pid, s.target!, flow, warmupMs, 0);
          const parts = new Map<string, Measured[]>(servers.map((s) => [s.setting, []]));
          for (let burst = 1; burst <= bursts; burst++)
            for (const setting of settingsOrder(settings, burst + round - 1)) {
              const s = servers.find((x) => x.setting === setting)!;
              parts
                .get(setting)!
                .push(
                  await measure(
                    options,
                    probe,
                    s.ours.service.pid,
                    s.target!,
                    flow,
                    durationMs / bursts,
                    300,
                  ),
                );
            }
          for (const setting of settings) record(setting, round, flow, mergeMeasured(parts.get(setting)!));
        }
      } finally {
        for (const s of servers) await stop(s, round);
      }
    }
  } finally {
    probe.stop();
  }
  if (options.perf)
    for (const setting of settings.slice(1)) {
      const names: [string, string] = [settings[0]!, setting];
      const [base, other] = [perfSymbols.get(settings[0]!)!, perfSymbols.get(setting)!];
      notes.push(
        ...kindsComparison(base.map(samplesByKind), other.map(samplesByKind), names),
        ...symbolDifferences(base, other, names),
      );
    }
  return { runs, notes };
}

type RecordingOptions = Pick<BenchOptions, "smoke" | "warmup" | "bursts">;

/**
 * Each server's warm-up and the bursts a window is recorded in (0: one server after the other), as
 * runAlternated runs them and measurementMethod reports them; a smoke run's are short.
 */
function recordingPlan(options: RecordingOptions): { warmupMs: number; bursts: number } {
  return options.smoke
    ? { warmupMs: 300, bursts: 0 }
    : { warmupMs: options.warmup * 1000, bursts: options.bursts ?? 0 };
}

/** How a run's windows were recorded (runAlternated), for its report: the warm-up, and whether in bursts. */
export function measurementMethod(options: RecordingOptions): string {
  const { warmupMs, bursts } = recordingPlan(options);
  const warmup = warmupMs / 1000;
  return bursts
    ? `a fresh server per setting and round, a round's servers side by side, each warmed up for ${warmup} s, ` +
        `then each window recorded in ${bursts} bursts taking turns (ABBA).`
    : `a fresh server per setting and round, warmed up for ${warmup} s before its window, one after the ` +
        "other, the rounds alternating the settings' order (ABBA).";
}

/** Writes bench/results/<name>-<time>.{md,json}, prints the Markdown; 1 when a run failed or was void. */
export function writeSettingsReport(report: {
  name: string;
  title: string;
  started: Date;
  options: BenchOptions;
  /** What the settings are, in a sentence or two. */
  what: string;
  runs: SettingRun[];
  ratios: string[];
  notes: string[];
}): number {
  const { name, started, options, runs, notes } = report;
  const cores = os.cpus().length;
  const load = os.loadavg().map((l) => l.toFixed(1));
  const text = `# ${report.title} ${started.toISOString()}

${cores} cores (${os.cpus()[0]?.model ?? ""}), Node ${process.version}, db ${options.db}; load average at the end:
${load.join(", ")}. ${options.duration}s per flow, ${options.rate ? `open loop at ${options.rate} flows/s` : `concurrency ${options.concurrency}, closed loop`}, ${measurementMethod(options)}
${report.what} Server CPU per flow: the API process's user + system time over the recorded
window, divided by the flows completed.

${settingsTable(runs)}

Server CPU ms per flow by thread (user + system, system in brackets):

${threadsTable(runs)}

${report.ratios.map((l) => `- ${l}`).join("\n")}

${notes.map((l) => `- ${l}`).join("\n")}
`;
  const dir = path.join(HERE, "results");
  fs.mkdirSync(dir, { recursive: true });
  const stamp = started.toISOString().replace(/[:.]/g, "-");
  fs.writeFileSync(path.join(dir, `${name}-${stamp}.md`), text);
  fs.writeFileSync(
    path.join(dir, `${name}-${stamp}.json`),
    `${JSON.stringify({ startedAt: started.toISOString(), cores, options, runs, notes }, null, 2)}\n`,
  );
  process.stdout.write(`\n${text}`);
  log(`\nreports: ${path.join(dir, `${name}-${stamp}.{md,json}`)}`);
  const errors = runs.reduce((n, r) => n + r.result.errors, 0);
  const void_ = notes.some((n) => n.includes("void"));
  return errors > 0 || void_ || runs.some((r) => r.result.ops === 0) ? 1 : 0;
}
