import fs from "node:fs";
import path from "node:path";
import type { BenchOptions } from "./args";
import { type CryptoRates, SERVER_CRYPTO } from "./crypto-bound";
import type { StatementShare } from "./db-statements";
import type { DriverResult } from "./driver";
import { f } from "./format";
import type { WebhookReceipts } from "./webhook-receiver";

export interface PhaseReport extends DriverResult {
  phase: "peak" | "70% of peak" | "fixed rate";
  rate?: number;
  concurrency: number;
  server: { peakRssMb: number; hwmMb: number; cpuSeconds: number; preemptionsPerSecond: number };
  /** `--db-statements`: the statements that took most of the database thread, per operation. */
  dbStatements?: StatementShare[];
}

export interface WorkloadReport {
  /** Ours, the oid4vc-ts library peer ("peer", ids `peer:…`) or the Credo 0.6 peer ("credo", ids `credo:…`). */
  side: "ours" | "peer" | "credo";
  id: string;
  title: string;
  available: boolean;
  /** Operations/s one core could reach if the server-side ES256 operations were its only cost. */
  bound: number | null;
  phases: PhaseReport[];
  note?: string;
  /** The `webhooks` workload: what the local receiver got over both phases. */
  webhooks?: WebhookReceipts;
}

export interface Report {
  startedAt: string;
  options: BenchOptions;
  machine: { cpus: number; cpuModel: string; node: string; totalMemGb: number };
  crypto: CryptoRates;
  workloads: WorkloadReport[];
  serverPeakRssMb?: number;
  cpuProfile?: unknown;
  notes: string[];
}

function webhookLines(report: Report): string[] {
  return report.workloads.flatMap((w) => {
    if (!w.webhooks) return [];
    const ops = w.phases.reduce((n, p) => n + p.ops, 0);
    const { events, repeats, latency } = w.webhooks;
    return [
      `webhooks: ${events} events delivered for ${ops} flows (${repeats} repeats), event → receipt ` +
        `p50 ${f(latency.p50, 0)} / p99 ${f(latency.p99, 0)} / max ${f(latency.max, 0)} ms`,
    ];
  });
}

function rows(report: Report): string[][] {
  const out: string[][] = [];
  for (const w of report.workloads) {
    if (!w.available) {
      out.push([w.side, w.id, "–", "not available", "", "", "", "", "", "", "", "", "", ""]);
      continue;
    }
    for (const p of w.phases) {
      out.push([
        w.side,
        w.id,
        p.phase === "peak" ? `peak (c=${p.concurrency})` : `open loop ${f(p.rate)}/s`,
        f(p.throughput),
        f(p.latency.p50),
        f(p.latency.p95),
        f(p.latency.p99),
        p.shed ? `${p.errors} (${p.shed} shed)` : String(p.errors),
        f(p.server.peakRssMb, 0),
        p.ops ? f((p.server.cpuSeconds * 1000) / p.ops, 2) : "–",
        f(p.server.preemptionsPerSecond, 0),
        p.ops ? f(p.clientCpuMs / p.ops, 2) : "–",
        f(w.bound),
        w.bound && p.phase === "peak" ? `${((p.throughput / w.bound) * 100).toFixed(1)}%` : "",
      ]);
    }
  }
  return out;
}

const HEADER = [
  "side",
  "workload",
  "phase",
  "ops/s",
  "p50 ms",
  "p95 ms",
  "p99 ms",
  "errors",
  "srv RSS MB",
  "srv CPU ms/op",
  "srv preempt/s",
  "client CPU ms/op",
  "ES256 bound/s",
  "share of bound",
];

function ratios(report: Report): string[] {
  const peakOf = (id: string) =>
    report.workloads.find((w) => w.id === id)?.phases.find((p) => p.phase === "peak");
  const lines: string[] = [];
  /** `a / b` at peak: throughput, p50, server CPU per flow and peak RSS. */
  const compare = (label: string, a: PhaseReport | undefined, b: PhaseReport | undefined) => {
    if (!a || !b || a.ops === 0 || b.ops === 0 || b.throughput <= 0) return;
    lines.push(
      `${label}: throughput ${(a.throughput / b.throughput).toFixed(2)}×, ` +
        `p50 ${(a.latency.p50 / b.latency.p50).toFixed(2)}×, server CPU per flow ` +
        `${(a.server.cpuSeconds / a.ops / (b.server.cpuSeconds / b.ops)).toFixed(2)}×, ` +
        `peak RSS ${(a.server.peakRssMb / b.server.peakRssMb).toFixed(2)}×`,
    );
  };
  for (const [label, id] of [
    ["issuance flow", "issuance"],
    ["verification flow", "verification"],
  ] as const) {
    const ours = peakOf(id);
    const library = peakOf(`peer:${id}`);
    const credo = peakOf(`credo:${id}`);
    compare(`${label}, ours / peer`, ours, library);
    compare(`${label}, ours / Credo`, ours, credo);
    compare(`${label}, Credo / peer`, credo, library);
  }
  const floor = peakOf("floor");
  const issuance = report.workloads.find((w) => w.id === "issuance");
  if (floor && floor.ops > 0 && issuance?.bound) {
    lines.push(
      `HTTP floor (5 round trips to a no-op route): ${f(floor.throughput, 0)}/s, ` +
        `${((floor.throughput / issuance.bound) * 100).toFixed(1)}% of the issuance flow's ES256 bound; ` +
        `server CPU ${f((floor.server.cpuSeconds / floor.ops) * 1000, 2)} ms per 5 requests`,
    );
  }
  return lines;
}

function cryptoLines(report: Report): string[] {
  const c = report.crypto;
  return [
    `ES256 on one core: node:crypto sign ${f(c.signPerSec, 0)}/s, verify ${f(c.verifyPerSec, 0)}/s (these make the bound); ` +
      `WebCrypto sign ${f(c.webcryptoSignPerSec, 0)}/s, jose verify ${f(c.joseVerifyPerSec, 0)}/s, ` +
      `jose import JWK + verify ${f(c.joseImportAndVerifyPerSec, 0)}/s (one at a time)`,
  ];
}

export function printTable(report: Report): string {
  const all = [HEADER, ...rows(report)];
  const widths = HEADER.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return (
    `\n${[line(HEADER), ...rows(report).map(line)].join("\n")}\n\n${[...cryptoLines(report), ...ratios(report), ...webhookLines(report)].join("\n")}\n` +
    `server peak RSS (VmHWM): ${f(report.serverPeakRssMb, 0)} MB\n`
  );
}

export function markdown(report: Report): string {
  const table = [HEADER, HEADER.map(() => "---"), ...rows(report)]
    .map((r) => `| ${r.join(" | ")} |`)
    .join("\n");
  const counted = Object.entries(SERVER_CRYPTO)
    .map(([id, c]) => `- \`${id}\`: ${c.signs} sign + ${c.verifies} verify — ${c.note}`)
    .join("\n");
  const steps = report.workloads
    .flatMap((w) =>
      w.phases
        .filter((p) => p.phase === "peak" && Object.keys(p.steps).length > 1)
        .map(
          (p) =>
            `**${w.id}** (peak): ` +
            Object.entries(p.steps)
              .map(([k, s]) => `${k} p50 ${f(s.p50)} / p99 ${f(s.p99)} ms`)
              .join("; "),
        ),
    )
    .join("\n\n");
  const errors = report.workloads
    .flatMap((w) => w.phases.flatMap((p) => p.errorSamples.map((e) => `- ${w.id} ${p.phase}: ${e}`)))
    .join("\n");
  const statements = report.workloads
    .flatMap((w) =>
      w.phases
        .filter((p) => p.dbStatements?.length)
        .map(
          (p) =>
            `**${w.id}** (${p.phase}), database thread per operation:\n\n| statement | runs/op | ms/run | ms/op | runs ≥ 15 ms |\n| --- | ---: | ---: | ---: | ---: |\n` +
            (p.dbStatements ?? [])
              .map(
                (s) =>
                  `| \`${s.sql.replaceAll("|", "\\|")}\` | ${f(s.executionsPerOp, 2)} | ${f(s.msPerExecution, 3)} | ${f(s.msPerOp, 3)} | ${s.slowRuns} |`,
              )
              .join("\n"),
        ),
    )
    .join("\n\n");
  return (
    `# Benchmark ${report.startedAt}

${report.machine.cpus} cores (${report.machine.cpuModel}), Node ${report.machine.node}, db ${report.options.db}, ` +
    `${report.options.duration}s per phase, concurrency ${report.options.concurrency}${report.options.smoke ? ", smoke" : ""}.

${table}

${[...cryptoLines(report), ...ratios(report), ...webhookLines(report)].map((l) => `- ${l}`).join("\n")}
- server peak RSS (VmHWM): ${f(report.serverPeakRssMb, 0)} MB

Server-side ES256 operations counted per operation:
${counted}

Steps:

${steps}
${statements ? `\n${statements}\n` : ""}${errors ? `\nErrors (first few):\n${errors}\n` : ""}`
  );
}

export function writeReports(dir: string, report: Report): string[] {
  const stamp = report.startedAt.replace(/[:.]/g, "-");
  const json = path.join(dir, `bench-${stamp}.json`);
  const md = path.join(dir, `bench-${stamp}.md`);
  fs.writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(md, markdown(report));
  fs.copyFileSync(json, path.join(dir, "latest.json"));
  fs.copyFileSync(md, path.join(dir, "latest.md"));
  return [json, md];
}
