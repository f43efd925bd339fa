// `pnpm bench --observability`: our issuance and verification flows with metrics and tracing off, then on
// (METRICS_TOKEN set and /metrics scraped as Prometheus would; every span exported over OTLP/HTTP to a sink
// in this process), alternated on fresh servers so a change in the machine's load shows between runs of one
// setting instead of between the settings. The question it answers (#26): server CPU per flow, on vs off.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchOptions } from "./args";
import type { DriverResult } from "./driver";
import { setupOurs, startOurs } from "./ours";
import { sampleProcess } from "./processes";
import { runDriver } from "./run-driver";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FLOWS = ["issuance", "verification"] as const;
const SETTINGS = ["off", "on"] as const;
type Setting = (typeof SETTINGS)[number];
const log = (line: string) => process.stderr.write(`${line}\n`);
const f = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "–");

interface Run {
  setting: Setting;
  round: number;
  flow: string;
  result: DriverResult;
  serverCpuSeconds: number;
}

/** An OTLP/HTTP sink: accepts every export (protobuf or JSON) with an empty success answer and counts them. */
async function otlpSink() {
  let exports = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    req.on("end", () => {
      if (req.url === "/v1/traces") exports++;
      const json = String(req.headers["content-type"]).startsWith("application/json");
      res.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" });
      res.end(json ? "{}" : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts: () => ({ exports, bytes }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Scrapes /metrics every `intervalMs` (Prometheus' default is 15 s; this is busier on purpose). */
function scraper(baseUrl: string, token: string, intervalMs = 5_000) {
  let scrapes = 0;
  let failures = 0;
  const scrape = () =>
    fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } })
      .then(async (res) => {
        await res.text();
        if (res.ok) scrapes++;
        else failures++;
      })
      .catch(() => {
        failures++;
      });
  const timer = setInterval(scrape, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await scrape();
      return { scrapes, failures };
    },
  };
}

function table(runs: Run[]): string {
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

/** Per flow, on against off with each setting's runs pooled: server CPU per flow, throughput and p99. */
export function observabilityRatios(runs: Run[]): string[] {
  return FLOWS.flatMap((flow) => {
    const pooled = (setting: Setting) => {
      const of = runs.filter((r) => r.flow === flow && r.setting === setting && r.result.ops > 0);
      if (of.length === 0) return undefined;
      const ops = of.reduce((a, r) => a + r.result.ops, 0);
      return {
        cpuPerFlow: (of.reduce((a, r) => a + r.serverCpuSeconds, 0) * 1000) / ops,
        throughput: of.reduce((a, r) => a + r.result.throughput, 0) / of.length,
        p99: of.reduce((a, r) => a + r.result.latency.p99, 0) / of.length,
      };
    };
    const off = pooled("off");
    const on = pooled("on");
    if (!off || !on) return [];
    return [
      `${flow}: on / off: server CPU per flow ${f(on.cpuPerFlow / off.cpuPerFlow, 3)}× ` +
        `(${f(off.cpuPerFlow, 3)} → ${f(on.cpuPerFlow, 3)} ms), throughput ${f(on.throughput / off.throughput, 2)}×, ` +
        `p99 ${f(on.p99 / off.p99, 2)}×`,
    ];
  });
}

/** Runs the flows with metrics and tracing off and on, alternated; returns the exit status. */
export async function runObservabilityBench(options: BenchOptions): Promise<number> {
  const flows = FLOWS.filter((id) => !options.only || options.only.includes(id));
  const rounds = options.smoke ? 1 : 2;
  const durationMs = options.duration * 1000;
  const runs: Run[] = [];
  const notes: string[] = [];
  const started = new Date();
  const sink = await otlpSink();
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const setting of SETTINGS) {
        const token = randomBytes(32).toString("hex");
        const env: Record<string, string> =
          setting === "on"
            ? {
                METRICS_TOKEN: token,
                OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
                OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
                ...(options.traceRatio === 1
                  ? { OTEL_TRACES_SAMPLER: "always_on" }
                  : {
                      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
                      OTEL_TRACES_SAMPLER_ARG: String(options.traceRatio),
                    }),
              }
            : {};
        log(`observability ${setting}, round ${round}: starting our service (${options.db})…`);
        const cpuProfDir = options.cpuProf
          ? path.join(HERE, "results", `cpu-observability-${setting}-${round}-${Date.now()}`)
          : undefined;
        const ours = await startOurs({ db: options.db, env, cpuProfDir, nodeArgs: options.serverNodeArgs });
        if (cpuProfDir) notes.push(`${setting}, round ${round}: server CPU profile in ${cpuProfDir}`);
        const before = sink.counts();
        const scrapes = setting === "on" ? scraper(ours.service.baseUrl, token) : undefined;
        try {
          const target = await setupOurs(ours.service.baseUrl, ours.apiKey);
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
          const scraped = await scrapes?.stop();
          await ours.stop();
          if (setting === "on") {
            // Give the exporter's last batch (sent at shutdown) a moment to arrive before counting.
            await new Promise((resolve) => setTimeout(resolve, 500));
            const after = sink.counts();
            const exported = after.exports - before.exports;
            notes.push(
              `round ${round}: ${exported} OTLP exports (${f((after.bytes - before.bytes) / 1024, 0)} KiB) received, ` +
                `/metrics scraped ${scraped?.scrapes ?? 0} times (${scraped?.failures ?? 0} failed)`,
            );
            if (exported === 0 || !scraped?.scrapes) {
              notes.push(`round ${round}: tracing or metrics were not on: the comparison is void`);
            }
          }
        }
      }
    }
  } finally {
    await sink.close();
  }
  const cores = os.cpus().length;
  const load = os.loadavg().map((l) => l.toFixed(1));
  const text = `# Observability overhead ${started.toISOString()}

${cores} cores (${os.cpus()[0]?.model ?? ""}), Node ${process.version}, db ${options.db}; load average at the end:
${load.join(", ")}. ${options.duration}s per flow, concurrency ${options.concurrency}, closed loop, a fresh server per
setting and round. "on": METRICS_TOKEN set with /metrics scraped every 5 s, and OpenTelemetry tracing with
${options.traceRatio === 1 ? "every trace" : `${options.traceRatio * 100}% of traces`} sampled and exported over OTLP/HTTP (protobuf) to a sink in the bench process. Server CPU per
flow: the API process's user + system time over the recorded window, divided by the flows completed.

${table(runs)}

${observabilityRatios(runs)
  .map((l) => `- ${l}`)
  .join("\n")}

${notes.map((l) => `- ${l}`).join("\n")}
`;
  const dir = path.join(HERE, "results");
  fs.mkdirSync(dir, { recursive: true });
  const stamp = started.toISOString().replace(/[:.]/g, "-");
  fs.writeFileSync(path.join(dir, `observability-${stamp}.md`), text);
  fs.writeFileSync(
    path.join(dir, `observability-${stamp}.json`),
    `${JSON.stringify({ startedAt: started.toISOString(), cores, options, runs, notes }, null, 2)}\n`,
  );
  process.stdout.write(`\n${text}`);
  log(`\nreports: ${path.join(dir, `observability-${stamp}.{md,json}`)}`);
  const errors = runs.reduce((n, r) => n + r.result.errors, 0);
  const void_ = notes.some((n) => n.includes("void"));
  return errors > 0 || void_ || runs.some((r) => r.result.ops === 0) ? 1 : 0;
}
