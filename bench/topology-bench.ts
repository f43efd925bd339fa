// `pnpm bench --db postgres --api-processes 1,2`: the flows through the scale-out topology (topology.ts:
// HAProxy, N API processes, a webhook worker, PgBouncer in transaction mode, PostgreSQL), for each N in
// turn on a fresh database, with the CPU of every server process (PostgreSQL's backends included) per flow.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchOptions } from "./args";
import type { DriverResult } from "./driver";
import { f } from "./format";
import { credentialIds, setupOurs } from "./ours";
import { runDriver } from "./run-driver";
import { type CpuComponent, type CpuSnapshot, cpuBetween, startTopology } from "./topology";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FLOWS = ["issuance", "verification", "revoke"] as const;
const log = (line: string) => process.stderr.write(`${line}\n`);

interface TopologyResult {
  apiProcesses: number;
  flow: string;
  result: DriverResult;
  /** CPU seconds per component over the recorded window. */
  cpu: Record<CpuComponent, number>;
}

const msPerOp = (seconds: number, ops: number) => (ops ? (seconds * 1000) / ops : Number.NaN);
const totalCpu = (cpu: Record<CpuComponent, number>) => Object.values(cpu).reduce((a, b) => a + b, 0);

function table(results: TopologyResult[]): string {
  const header = [
    "API processes",
    "flow",
    "flows/s",
    "p50 ms",
    "p99 ms",
    "errors",
    "API CPU ms/flow",
    "worker",
    "PostgreSQL",
    "PgBouncer + HAProxy",
    "server total ms/flow",
    "driver ms/flow",
  ];
  const rows = results.map(({ apiProcesses, flow, result: r, cpu }) => [
    String(apiProcesses),
    flow,
    f(r.throughput),
    f(r.latency.p50),
    f(r.latency.p99),
    String(r.errors),
    f(msPerOp(cpu.api, r.ops), 2),
    f(msPerOp(cpu.worker, r.ops), 2),
    f(msPerOp(cpu.postgres, r.ops), 2),
    f(msPerOp(cpu.pgbouncer + cpu.haproxy, r.ops), 2),
    f(msPerOp(totalCpu(cpu), r.ops), 2),
    f(r.ops ? r.clientCpuMs / r.ops : Number.NaN, 2),
  ]);
  return [header, header.map(() => "---"), ...rows].map((r) => `| ${r.join(" | ")} |`).join("\n");
}

/**
 * Per flow, the most API processes against the fewest: throughput, p99 and server CPU per flow, each N's
 * runs pooled (`--api-processes 1,2,1,2` alternates them, so a change in the machine's load meanwhile
 * shows as a difference between runs of one N instead of between the Ns).
 */
function ratios(results: TopologyResult[], counts: number[]): string[] {
  const [fewest, most] = [Math.min(...counts), Math.max(...counts)];
  if (fewest === most) return [];
  const pooled = (flow: string, n: number) => {
    const runs = results.filter((r) => r.flow === flow && r.apiProcesses === n && r.result.ops > 0);
    if (runs.length === 0) return undefined;
    const ops = runs.reduce((a, r) => a + r.result.ops, 0);
    return {
      throughput: runs.reduce((a, r) => a + r.result.throughput, 0) / runs.length,
      p99: runs.reduce((a, r) => a + r.result.latency.p99, 0) / runs.length,
      cpuPerFlow: runs.reduce((a, r) => a + totalCpu(r.cpu), 0) / ops,
      throughputs: runs.map((r) => f(r.result.throughput)).join(", "),
    };
  };
  return FLOWS.flatMap((flow) => {
    const a = pooled(flow, fewest);
    const b = pooled(flow, most);
    if (!a || !b) return [];
    return [
      `${flow}: ${most} / ${fewest} API processes: throughput ${f(b.throughput / a.throughput, 2)}× ` +
        `(${fewest}: ${a.throughputs}; ${most}: ${b.throughputs} flows/s), p99 ${f(b.p99 / a.p99, 2)}×, ` +
        `server CPU per flow ${f(b.cpuPerFlow / a.cpuPerFlow, 2)}×`,
    ];
  });
}

/** Runs the flows for each number of API processes in `counts`; returns the exit status. */
export async function runTopologyBench(options: BenchOptions, counts: number[]): Promise<number> {
  const flows = FLOWS.filter((id) => !options.only || options.only.includes(id));
  const durationMs = options.duration * 1000;
  const results: TopologyResult[] = [];
  const started = new Date();
  for (const n of counts) {
    log(`topology: ${n} API process(es), 1 webhook worker, HAProxy, PgBouncer (transaction mode)…`);
    const topology = await startTopology({ apiProcesses: n, workers: 1 });
    try {
      const target = await setupOurs(topology.baseUrl, topology.apiKey);
      let issued: string[] = [];
      for (const flow of flows) {
        let items: string[] | undefined;
        if (flow === "revoke") {
          if (issued.length === 0)
            throw new Error("revoke needs the issuance flow's credentials (--only issuance,revoke)");
          items = await credentialIds(target, issued);
        }
        let before: Promise<CpuSnapshot> | undefined;
        let after: Promise<CpuSnapshot> | undefined;
        const result = await runDriver(
          {
            side: "ours",
            workload: flow,
            target,
            concurrency: options.concurrency,
            durationMs,
            warmupMs: items ? 0 : Math.min(2000, durationMs / 5),
            items,
          },
          options.driverCpuProf,
          (mark) => {
            if (mark === "recording") before = topology.cpu();
            else after = topology.cpu();
          },
        );
        const cpu = cpuBetween(await before!, await (after ?? topology.cpu()));
        if (flow === "issuance") issued = result.produced;
        results.push({ apiProcesses: n, flow, result, cpu });
        log(
          `  ${n} × API, ${flow}: ${f(result.throughput)}/s, p99 ${f(result.latency.p99)} ms, ${result.errors} errors, ` +
            `server CPU ${f(msPerOp(totalCpu(cpu), result.ops), 2)} ms/flow${result.errorSamples.length ? `; ${result.errorSamples[0]}` : ""}`,
        );
      }
    } finally {
      await topology.stop();
    }
  }
  const cores = os.cpus().length;
  const load = os.loadavg().map((l) => l.toFixed(1));
  const text = `# Topology benchmark ${started.toISOString()}

${cores} cores (${os.cpus()[0]?.model ?? ""}), Node ${process.version}; the load driver, HAProxy, PgBouncer,
PostgreSQL and the API processes share them (load average at the end: ${load.join(", ")}). ${options.duration}s per flow, concurrency ${options.concurrency}, closed loop.
CPU per flow: user + system time of each process over the recorded window (PostgreSQL: the backends of
the run's database), divided by the flows completed.

${table(results)}

${ratios(results, counts)
  .map((l) => `- ${l}`)
  .join("\n")}
`;
  const dir = path.join(HERE, "results");
  fs.mkdirSync(dir, { recursive: true });
  const stamp = started.toISOString().replace(/[:.]/g, "-");
  fs.writeFileSync(path.join(dir, `topology-${stamp}.md`), text);
  fs.writeFileSync(
    path.join(dir, `topology-${stamp}.json`),
    `${JSON.stringify({ startedAt: started.toISOString(), cores, options, results }, null, 2)}\n`,
  );
  process.stdout.write(`\n${text}`);
  log(`\nreports: ${path.join(dir, `topology-${stamp}.{md,json}`)}`);
  const errors = results.reduce((n, r) => n + r.result.errors, 0);
  return errors > 0 || results.some((r) => r.result.ops === 0) ? 1 : 0;
}
