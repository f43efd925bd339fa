// Server instructions per flow, metrics and tracing off against on, counted by valgrind's callgrind on the
// whole server (its request thread, the embedded database's thread, V8's GC and compiler threads): a count
// of executed instructions, which the machine's load and its other processes do not move the way they move
// CPU time. `pnpm bench --observability` times the same question; on a busy machine its rounds spread wider
// than the 5% it asks about (#26, docs/performance.md).
//
//   tsx bench/observability-instructions.ts [--flows 200] [--warmup 1500] [--concurrency 4] [--rounds 1] [--passes 1]
//     [--trace-ratio 0.1] [--idle 20] [--rate 250] [--scrape-every 5] [--only issuance,verification]
//     [--settings off,on]
//     [--keep-dumps <dir>] [--server-node-arg <flag>]
//
// Each setting's server starts under callgrind with counting off (valgrind's translation without the
// counting runs the warm-up several times faster), gets `--warmup` flows of each kind, then counting goes on
// (`callgrind_control --instr=on`) and three kinds of window are counted, each from a zeroed counter to a
// dump:
//   - idle: `--idle` seconds without requests, the work the server does by the clock (prom-client's
//     event-loop-delay monitor, the span processor's timer, the database's checkpoints);
//   - flows: `--flows` flows of one kind, `--concurrency` in flight, every one started after the zeroing
//     and answered before the dump;
//   - scrapes (metrics on): five GET /metrics.
// Under valgrind the server runs ~50× slower, so the clock's work falls on far fewer flows than at the real
// rate: the flows window has its idle rate taken out, and the report projects per flow at `--rate` flows/s
// as work + idle rate / rate + one scrape every `--scrape-every` s / (rate × interval).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient } from "./http";
import { dumpTotal, type FlowWindow, projectedPerFlow } from "./instruction-counts";
import { observabilityOnEnv, otlpSink } from "./observability-bench";
import { setupOurs, startOurs } from "./ours";
import { oursWorkload } from "./workloads";

const SETTINGS = ["off", "on"] as const;
const FLOWS = ["issuance", "verification"] as const;
const log = (line: string) => process.stderr.write(`${line}\n`);

const option = (name: string) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const number = (name: string, fallback: number) => Number(option(name) ?? fallback);
const flowsPerWindow = number("--flows", 200);
const warmup = number("--warmup", 1500);
const concurrency = number("--concurrency", 4);
const rounds = number("--rounds", 1);
// `--passes N`: the flows' windows N times over, one kind after the other (what is still warming up shows
// as a difference between the passes).
const passes = number("--passes", 1);
const passList = Array.from({ length: passes }, (_, i) => i + 1);
const traceRatio = number("--trace-ratio", 0.1);
const idleSeconds = number("--idle", 20);
const rate = number("--rate", 250);
const scrapeEvery = number("--scrape-every", 5);
// `--server-node-arg <flag>` (repeatable): more node flags for the server, e.g. `--perf-basic-prof`, whose
// /tmp/perf-<pid>.map names the JIT code a kept dump shows only by address.
const serverNodeArgs = process.argv.flatMap((arg, i) =>
  arg === "--server-node-arg" && process.argv[i + 1] ? [process.argv[i + 1]!] : [],
);
const settings = SETTINGS.filter(
  (s) => !option("--settings") || option("--settings")!.split(",").includes(s),
);
const flows = FLOWS.filter((flow) => !option("--only") || option("--only")!.split(",").includes(flow));

/**
 * callgrind_control on the server; it waits until valgrind has carried the command out. Valgrind names its
 * control pipes after the process's HOST variable, which the server has as its listening address.
 */
function control(pid: number, ...args: string[]) {
  const out = execFileSync("callgrind_control", [...args, String(pid)], {
    timeout: 600_000,
    env: { ...process.env, HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  }).toString();
  // callgrind_control exits 0 even when it reached no process.
  if (!out.includes("OK.") && !out.includes("sending command"))
    throw new Error(`callgrind_control ${args.join(" ")}: ${out}`);
  return out;
}

const keepDumps = option("--keep-dumps");
if (keepDumps) fs.mkdirSync(keepDumps, { recursive: true });

/**
 * Zeroes the counter, runs `work`, dumps; the dump's instruction total. With `--keep-dumps <dir>`, the dump
 * is kept there as `<name>.out` (for callgrind_annotate: where a setting's extra instructions go).
 */
async function counted(pid: number, dir: string, name: string, work: () => Promise<void>): Promise<number> {
  control(pid, "--zero");
  await work();
  const before = new Set(fs.readdirSync(dir));
  control(pid, "--dump");
  const file = fs.readdirSync(dir).find((name) => !before.has(name) && name.startsWith("callgrind.out"));
  if (!file) throw new Error(`no callgrind dump appeared in ${dir}`);
  const text = fs.readFileSync(path.join(dir, file), "utf8");
  if (keepDumps) fs.renameSync(path.join(dir, file), path.join(keepDumps, `${name}.out`));
  else fs.rmSync(path.join(dir, file));
  return dumpTotal(text);
}

/** `n` iterations of a workload, `concurrency` at a time; throws on the first error. */
async function iterate(workload: ReturnType<typeof oursWorkload>, n: number) {
  let started = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < n) {
        started++;
        await workload.iteration((_name, fn) => fn());
      }
    }),
  );
}

interface Counted {
  setting: string;
  round: number;
  idlePerSecond: number;
  /** Per flow kind, pass by pass: the window's instructions, its seconds, and its flows. */
  windows: Record<string, FlowWindow[]>;
  perScrape?: number;
}

async function countSetting(
  setting: (typeof SETTINGS)[number],
  round: number,
  sink: Awaited<ReturnType<typeof otlpSink>>,
): Promise<Counted> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cred-callgrind-"));
  const token = randomBytes(32).toString("hex");
  const env =
    setting === "off"
      ? {}
      : observabilityOnEnv({ metrics: true, tracing: true, token, sinkUrl: sink.url, traceRatio });
  log(`${setting}, round ${round}: starting the server under callgrind…`);
  const ours = await startOurs({
    db: "embedded",
    env,
    nodeArgs: serverNodeArgs,
    startTimeoutMs: 600_000,
    wrapper: [
      "valgrind",
      "--tool=callgrind",
      "--instr-atstart=no",
      "--dump-line=no",
      `--callgrind-out-file=${path.join(dir, "callgrind.out")}`,
    ],
  });
  const pid = ours.service.pid;
  const client = createClient(concurrency);
  try {
    const target = await setupOurs(ours.service.baseUrl, ours.apiKey);
    const workloads = Object.fromEntries(flows.map((flow) => [flow, oursWorkload(flow, target, client, [])]));
    for (const flow of flows) {
      await workloads[flow]!.prepare?.();
      const t0 = performance.now();
      await iterate(workloads[flow]!, warmup);
      log(`  ${flow}: ${warmup} warm-up flows in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
    control(pid, "--instr=on");
    // A few flows with counting on before the first window: valgrind translates the code again.
    for (const flow of flows) await iterate(workloads[flow]!, 2 * concurrency);
    const idle = await counted(pid, dir, `${setting}-${round}-idle`, () => sleep(idleSeconds * 1000));
    const idlePerSecond = idle / idleSeconds;
    log(`  idle: ${(idlePerSecond / 1e6).toFixed(2)} M instructions/s`);
    const windows: Counted["windows"] = {};
    for (let pass = 1; pass <= passes; pass++)
      for (const flow of flows) {
        let seconds = 0;
        const exported = sink.counts().bytes;
        const instructions = await counted(pid, dir, `${setting}-${round}-${flow}-${pass}`, async () => {
          const t0 = performance.now();
          await iterate(workloads[flow]!, flowsPerWindow);
          seconds = (performance.now() - t0) / 1000;
        });
        windows[flow] = [...(windows[flow] ?? []), { instructions, seconds, flows: flowsPerWindow }];
        log(
          `  ${flow}, pass ${pass}: ${(instructions / flowsPerWindow / 1e6).toFixed(3)} M instructions/flow raw, ` +
            `${((instructions - idlePerSecond * seconds) / flowsPerWindow / 1e6).toFixed(3)} M without the idle rate ` +
            `(${seconds.toFixed(0)} s; ${((sink.counts().bytes - exported) / 1024).toFixed(0)} KiB exported)`,
        );
      }
    let perScrape: number | undefined;
    if (setting === "on") {
      const scrapes = 5;
      let seconds = 0;
      const instructions = await counted(pid, dir, `${setting}-${round}-scrapes`, async () => {
        const t0 = performance.now();
        for (let i = 0; i < scrapes; i++) {
          const res = await fetch(`${ours.service.baseUrl}/metrics`, {
            headers: { authorization: `Bearer ${token}` },
          });
          await res.text();
          if (!res.ok) throw new Error(`/metrics answered ${res.status}`);
        }
        seconds = (performance.now() - t0) / 1000;
      });
      perScrape = (instructions - idlePerSecond * seconds) / scrapes;
      log(`  scrape: ${(perScrape / 1e6).toFixed(2)} M instructions`);
    }
    return { setting, round, idlePerSecond, windows, perScrape };
  } finally {
    await client.close();
    await ours.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Per flow at the real rate: the flows' own work, the clock's work shared by `rate` flows a second, the scrapes'. */
function projected(c: Counted, flow: string, pass: number): number {
  return projectedPerFlow(c.windows[flow]![pass - 1]!, c.idlePerSecond, c.perScrape ?? 0, rate, scrapeEvery);
}

const sink = await otlpSink();
const results: Counted[] = [];
try {
  for (let round = 1; round <= rounds; round++)
    for (const setting of round % 2 ? settings : [...settings].reverse())
      results.push(await countSetting(setting, round, sink));
} finally {
  await sink.close();
}
const m = (n: number) => (n / 1e6).toFixed(3);
const lines = [
  `| setting | round | pass | flow | M instructions/flow, raw | idle M/s | projected at ${rate}/s |`,
  "| --- | --- | --- | --- | --- | --- | --- |",
  ...results.flatMap((c) =>
    passList.flatMap((pass) =>
      flows.map((flow) => {
        const w = c.windows[flow]![pass - 1]!;
        return (
          `| ${c.setting} | ${c.round} | ${pass} | ${flow} | ${m(w.instructions / w.flows)} | ` +
          `${m(c.idlePerSecond)} | ${m(projected(c, flow, pass))} |`
        );
      }),
    ),
  ),
  "",
  ...passList.flatMap((pass) =>
    (settings.length === SETTINGS.length ? flows : []).map((flow) => {
      const mean = (setting: string) => {
        const of = results.filter((c) => c.setting === setting);
        return of.reduce((a, c) => a + projected(c, flow, pass), 0) / of.length;
      };
      return `${flow}, pass ${pass}: on / off, projected instructions per flow ${(mean("on") / mean("off")).toFixed(3)}× (${m(mean("off"))} → ${m(mean("on"))} M)`;
    }),
  ),
  "",
  `${flowsPerWindow} flows per window, ${concurrency} in flight, after ${warmup} warm-up flows of each kind; ` +
    `"on": METRICS_TOKEN set, tracing at ${traceRatio === 1 ? "every trace" : traceRatio} sampled to an OTLP/HTTP sink in this process; ` +
    `projection: one scrape every ${scrapeEvery} s at ${rate} flows/s.`,
];
process.stdout.write(`${lines.join("\n")}\n`);
