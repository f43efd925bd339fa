// `pnpm bench --db postgres --api-processes 1,2`: the flows through the scale-out topology (topology.ts:
// HAProxy, N API processes, a webhook worker, PgBouncer in transaction mode, PostgreSQL), for each N in
// turn on a fresh database, with the CPU of every server process (PostgreSQL's backends included) per flow.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchOptions } from "./args";
import type { DriverResult } from "./driver";
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

const f = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "–");
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

function ratios(results: TopologyResult[], counts: number[]): string[] {
  if (counts.length < 2) return [];
  const [first, last] = [counts[0]!, counts[counts.length - 1]!];
  return FLOWS.flatMap((flow) => {
    const a = results.find((r) => r.flow === flow && r.apiProcesses === first);
    const b = results.find((r) => r.flow === flow && r.apiProcesses === last);
    if (!a || !b || !a.result.ops || !b.result.ops) return [];
    const perFlow = (x: TopologyResult) => totalCpu(x.cpu) / x.result.ops;
    return [
      `${flow}: ${last} / ${first} API processes: throughput ${f(b.result.throughput / a.result.throughput, 2)}×, ` +
        `p99 ${f(b.result.latency.p99 / a.result.latency.p99, 2)}×, server CPU per flow ${f(perFlow(b) / perFlow(a), 2)}×`,
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
  const text = `# Topology benchmark ${started.toISOString()}

${cores} cores (${os.cpus()[0]?.model ?? ""}), Node ${process.version}; the load driver, HAProxy, PgBouncer,
PostgreSQL and the API processes share them. ${options.duration}s per flow, concurrency ${options.concurrency}, closed loop.
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
