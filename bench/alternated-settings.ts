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
import { type OursTarget, setupOurs, startOurs } from "./ours";
import { sampleProcess } from "./processes";
import { AREAS, profileShares } from "./profile-shares";
import { runDriver } from "./run-driver";

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const FLOWS = ["issuance", "verification"] as const;
const log = (line: string) => process.stderr.write(`${line}\n`);
export const f = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "–");

export interface SettingRun {
  setting: string;
  round: number;
  flow: string;
  result: DriverResult;
  serverCpuSeconds: number;
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

/** Per flow, `other` against `base` with each setting's runs pooled: server CPU per flow, throughput, p99. */
export function settingRatios(runs: SettingRun[], base: string, other: string): string[] {
  return FLOWS.flatMap((flow) => {
    const pooled = (setting: string) => {
      const of = runs.filter((r) => r.flow === flow && r.setting === setting && r.result.ops > 0);
      if (of.length === 0) return undefined;
      const ops = of.reduce((a, r) => a + r.result.ops, 0);
      return {
        cpuPerFlow: (of.reduce((a, r) => a + r.serverCpuSeconds, 0) * 1000) / ops,
        throughput: of.reduce((a, r) => a + r.result.throughput, 0) / of.length,
        p99: of.reduce((a, r) => a + r.result.latency.p99, 0) / of.length,
      };
    };
    const b = pooled(base);
    const o = pooled(other);
    if (!b || !o) return [];
    return [
      `${flow}: ${other} / ${base}: server CPU per flow ${f(o.cpuPerFlow / b.cpuPerFlow, 3)}× ` +
        `(${f(b.cpuPerFlow, 3)} → ${f(o.cpuPerFlow, 3)} ms), throughput ${f(o.throughput / b.throughput, 2)}×, ` +
        `p99 ${f(o.p99 / b.p99, 2)}×`,
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

/**
 * Per flow, `other` against `base` round by round: each round's ratio of server CPU per flow (the two
 * settings ran back to back in that round), their median and their spread. One noisy run of a setting
 * moves one round's ratio, not the median; the spread shows how far the machine let the rounds agree.
 */
export function roundRatios(runs: SettingRun[], base: string, other: string): string[] {
  return FLOWS.flatMap((flow) => {
    const cpuPerFlow = (setting: string, round: number) => {
      const run = runs.find((r) => r.flow === flow && r.setting === setting && r.round === round);
      return run && run.result.ops > 0 ? run.serverCpuSeconds / run.result.ops : undefined;
    };
    const rounds = [...new Set(runs.filter((r) => r.flow === flow).map((r) => r.round))].sort(
      (a, b) => a - b,
    );
    const ratios = rounds.flatMap((round) => {
      const b = cpuPerFlow(base, round);
      const o = cpuPerFlow(other, round);
      return b && o ? [o / b] : [];
    });
    if (ratios.length === 0) return [];
    return [
      `${flow}: ${other} / ${base}, server CPU per flow round by round: median ${f(median(ratios), 3)}× ` +
        `(${f(Math.min(...ratios), 3)}–${f(Math.max(...ratios), 3)} over ${ratios.length} round${ratios.length === 1 ? "" : "s"}: ` +
        `${ratios.map((r) => f(r, 2)).join(", ")})`,
    ];
  });
}

/** The order of the settings in a round: as given in odd rounds, reversed in even ones (ABBA). */
export const settingsOrder = (settings: readonly string[], round: number) =>
  round % 2 === 1 ? [...settings] : [...settings].reverse();

/**
 * Runs the flows once per setting and round, `--rounds` rounds (default 2); the rounds alternate the
 * settings' order (A B, B A, …), so a machine getting steadily busier or quieter does not favour the
 * setting that always runs second. Returns runs and notes.
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
  const runs: SettingRun[] = [];
  const notes: string[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const setting of settingsOrder(settings, round)) {
      const given = start(setting, round);
      log(`${label} ${setting}, round ${round}: starting our service (${options.db})…`);
      const cpuProfDir = options.cpuProf
        ? path.join(HERE, "results", `cpu-${label}-${setting}-${round}-${Date.now()}`)
        : undefined;
      const ours = await startOurs({
        db: options.db,
        env: given.env,
        cpuProfDir,
        nodeArgs: options.serverNodeArgs,
      });
      if (cpuProfDir) notes.push(`${setting}, round ${round}: server CPU profile in ${cpuProfDir}`);
      const beside = given.beside?.(ours.service.baseUrl);
      try {
        const target: OursTarget = await setupOurs(ours.service.baseUrl, ours.apiKey, given.issuer);
        for (const flow of flows) {
          let sampler = sampleProcess(ours.service.pid);
          let serverCpuSeconds: number | undefined;
          const result = await runDriver(
            {
              side: "ours",
              workload: flow,
              target,
              concurrency: options.concurrency,
              durationMs,
              warmupMs: options.smoke ? 300 : Math.min(2000, durationMs / 5),
            },
            options.driverCpuProf,
            (mark) => {
              if (mark === "recording") {
                sampler.stop();
                sampler = sampleProcess(ours.service.pid);
              } else serverCpuSeconds = sampler.stop().cpuSeconds;
            },
          );
          serverCpuSeconds ??= sampler.stop().cpuSeconds;
          runs.push({ setting, round, flow, result, serverCpuSeconds });
          log(
            `  ${setting} ${flow}: ${f(result.throughput)}/s, p99 ${f(result.latency.p99)} ms, ${result.errors} errors, ` +
              `server CPU ${f(result.ops ? (serverCpuSeconds * 1000) / result.ops : Number.NaN, 3)} ms/flow`,
          );
        }
      } finally {
        await beside?.stopping();
        await ours.stop();
        if (beside) notes.push(...(await beside.finished()).map((n) => `${setting}, round ${round}: ${n}`));
        if (cpuProfDir) notes.push(`${setting}, round ${round}: ${sharesLine(cpuProfDir)}`);
      }
    }
  }
  return { runs, notes };
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
${load.join(", ")}. ${options.duration}s per flow, concurrency ${options.concurrency}, closed loop, a fresh server per
setting and round. ${report.what} Server CPU per flow: the API process's user + system time over the recorded
window, divided by the flows completed.

${settingsTable(runs)}

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
