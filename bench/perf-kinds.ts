// Where a server's CPU time goes, by kind of work, from Linux `perf` (`pnpm bench --observability --perf`).
// perf samples a process's CPU clock on every thread (its request thread, the embedded database's, V8's
// compiler and garbage-collector threads), so, unlike V8's --cpu-prof, whose samples follow the wall clock
// of the request thread, a thread that waits for a core is not charged for the wait. The kinds tell the
// code itself (optimised JavaScript, the database's WebAssembly) from the engine's work around it (the
// compiler, the collector, inline-cache misses and the interpreter), which is where an added module or
// hook can cost more than its own functions do.
//
//   tsx bench/perf-kinds.ts <perf.data> [<perf.data> …]   # each recording's samples by kind
import { execFileSync, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export type PerfKind =
  | "optimised JS"
  | "unoptimised JS"
  | "inline caches"
  | "other builtins"
  | "compiler"
  | "garbage collection"
  | "V8 runtime"
  | "database (wasm)"
  | "native and kernel";

export const PERF_KINDS: PerfKind[] = [
  "optimised JS",
  "unoptimised JS",
  "inline caches",
  "other builtins",
  "compiler",
  "garbage collection",
  "V8 runtime",
  "database (wasm)",
  "native and kernel",
];

const GC = /Heap|Scaveng|MarkCompact|Marking|Sweep|Evacuat|Compactor|\bGC|Concurrent(Marking|Allocator)/;

/**
 * The kind of work of one symbol as `perf report` names it: V8's JIT code as `--perf-basic-prof` names it
 * (`JS:*fn` optimised, `JS:^fn` baseline, `JS:~fn` interpreted, `JS:wasm-function[…]`), V8's builtins
 * (`Builtins_…`) and its C++ (`v8::internal::…`), anything else native.
 */
export function kindOfSymbol(symbol: string): PerfKind {
  if (symbol.includes("wasm-function")) return "database (wasm)";
  if (symbol.startsWith("JS:*") || symbol.startsWith("JS:+")) return "optimised JS";
  if (symbol.startsWith("JS:")) return "unoptimised JS";
  if (/v8::internal::(compiler|maglev|baseline)::|Turbofan|Pipeline|OptimizingCompile/.test(symbol))
    return "compiler";
  if (symbol.startsWith("v8::") && GC.test(symbol)) return "garbage collection";
  if (symbol.startsWith("Builtins_")) {
    if (/IC(_|Trampoline|Baseline|$)|IC_Megamorphic/.test(symbol)) return "inline caches";
    if (/^Builtins_(Interpreter|Baseline)|Handler$/.test(symbol)) return "unoptimised JS";
    if (/RecordWrite|Allocate/.test(symbol)) return "garbage collection";
    return "other builtins";
  }
  if (symbol.startsWith("v8::") || symbol.startsWith("Runtime_")) return "V8 runtime";
  return "native and kernel";
}

const noSamples = () => Object.fromEntries(PERF_KINDS.map((kind) => [kind, 0])) as Record<PerfKind, number>;

/** A recording's samples, all kinds together. */
const totalOf = (kinds: Record<PerfKind, number>) => PERF_KINDS.reduce((sum, kind) => sum + kinds[kind], 0);

/** Samples by symbol from `perf report --stdio -n --sort sym` (lines `  1.23%  456  [.] symbol`). */
export function parsePerfReport(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    const match = /^\s*[\d.]+%\s+(\d+)\s+\[[^\]]*\]\s+(.*)$/.exec(line);
    if (!match) continue;
    const symbol = match[2]!.trim();
    samples.set(symbol, (samples.get(symbol) ?? 0) + Number(match[1]));
  }
  return samples;
}

/** Samples by kind, from samples by symbol. */
export function samplesByKind(bySymbol: Map<string, number>): Record<PerfKind, number> {
  const kinds = noSamples();
  for (const [symbol, samples] of bySymbol) kinds[kindOfSymbol(symbol)] += samples;
  return kinds;
}

/** A recording's samples by symbol (`perf report` finds JIT symbols in /tmp/perf-<pid>.map). */
export function perfSymbolsOf(dataFile: string): Map<string, number> {
  const report = execFileSync("perf", ["report", "-i", dataFile, "--stdio", "-n", "--sort", "sym"], {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    stdio: ["ignore", "pipe", "ignore"],
  });
  return parsePerfReport(report);
}

/**
 * A symbol as the report prints it: a package's file from its name on (`@opentelemetry/sdk-trace/build/…`,
 * not pnpm's store path), the project's files from the checkout, cut at 160 characters.
 */
export function shortSymbol(symbol: string, root = process.cwd()): string {
  const short = symbol
    .replace(/(?:file:\/\/)?\/\S*?\/node_modules\/\.pnpm\/[^/\s]+\/node_modules\//g, "")
    .replaceAll(`file://${root}/`, "")
    .replaceAll(`${root}/`, "");
  return short.length > 160 ? `${short.slice(0, 160)}…` : short;
}

/** Samples per recording, by symbol: the mean over `recordings` (a symbol missing from one counts 0 there). */
function meanBySymbol(recordings: Map<string, number>[]): Map<string, number> {
  const mean = new Map<string, number>();
  for (const bySymbol of recordings)
    for (const [symbol, samples] of bySymbol)
      mean.set(symbol, (mean.get(symbol) ?? 0) + samples / recordings.length);
  return mean;
}

/**
 * The `count` symbols whose samples per server moved most between two settings, up and down, each with its
 * kind: where a kind's difference (kindsComparison) comes from. JIT code is named by function and tier
 * (`JS:*` optimised, `JS:^`/`JS:~` baseline and interpreted), so a function that runs less optimised under
 * `other` shows as one tier down and another up.
 */
export function symbolDifferences(
  base: Map<string, number>[],
  other: Map<string, number>[],
  names: [string, string],
  count = 12,
): string[] {
  const a = meanBySymbol(base);
  const b = meanBySymbol(other);
  const total = [...a.values()].reduce((sum, samples) => sum + samples, 0) || 1;
  const moved = [...new Set([...a.keys(), ...b.keys()])].map((symbol) => {
    const from = a.get(symbol) ?? 0;
    const to = b.get(symbol) ?? 0;
    return { symbol, from, to, by: to - from };
  });
  const line = ({ symbol, from, to, by }: (typeof moved)[number]) =>
    `perf symbol, ${names[1]} against ${names[0]}: ${by > 0 ? "+" : ""}${by.toFixed(0)} ` +
    `(${from.toFixed(0)} → ${to.toFixed(0)}, ${((by / total) * 100).toFixed(2)} points of the whole) ` +
    `[${kindOfSymbol(symbol)}] ${shortSymbol(symbol)}`;
  const up = moved.filter((row) => row.by > 0).sort((x, y) => y.by - x.by);
  const down = moved.filter((row) => row.by < 0).sort((x, y) => x.by - y.by);
  return [...up.slice(0, count).map(line), ...down.slice(0, count).map(line)];
}

/** Whether `perf` can be run here. */
export function perfAvailable(): boolean {
  try {
    execFileSync("perf", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The V8 flags a server needs for perf to name its JIT code, its V8 log kept in `dir`. */
export const perfNodeArgs = (dir: string) => [
  "--perf-basic-prof",
  `--logfile=${dir}/v8.log`,
  "--no-logfile-per-isolate",
];

/**
 * Records the CPU clock of process `pid` (every thread) at ~1 kHz into `dataFile` until the process exits;
 * settles once perf has written the file.
 */
export function recordPerf(pid: number, dataFile: string): Promise<void> {
  const perf = spawn(
    "perf",
    ["record", "-q", "-e", "cpu-clock", "-F", "999", "-p", String(pid), "-o", dataFile],
    { stdio: "ignore" },
  );
  return new Promise<void>((resolve) => {
    perf.once("exit", () => resolve());
    perf.once("error", () => resolve());
  });
}

/** `kind a%, kind b%, …` of a recording's samples, with their total. */
export function kindsLine(kinds: Record<PerfKind, number>): string {
  const total = totalOf(kinds);
  const cells = PERF_KINDS.map((kind) => `${kind} ${((kinds[kind] / (total || 1)) * 100).toFixed(1)}%`);
  return `${total} samples: ${cells.join(", ")}`;
}

/**
 * Each kind's samples under `other` against `base`, summed over their recordings: the kinds' own ratios and
 * each kind's share of the difference in the whole.
 */
export function kindsComparison(
  base: Record<PerfKind, number>[],
  other: Record<PerfKind, number>[],
  names: [string, string],
): string[] {
  // Per recording, so settings with different numbers of servers compare.
  const perServer = (all: Record<PerfKind, number>[]) => {
    const mean = noSamples();
    for (const kinds of all) for (const kind of PERF_KINDS) mean[kind] += kinds[kind];
    for (const kind of PERF_KINDS) mean[kind] /= all.length || 1;
    return mean;
  };
  const a = perServer(base);
  const b = perServer(other);
  const baseTotal = totalOf(a);
  const otherTotal = totalOf(b);
  const lines = [
    `perf samples per server, ${names[1]} / ${names[0]}: ${(otherTotal / baseTotal).toFixed(3)}× ` +
      `(${baseTotal.toFixed(0)} → ${otherTotal.toFixed(0)}; ${base.length} and ${other.length} servers)`,
  ];
  // The database runs the same statements for the same flows in both settings, so its samples measure how
  // fast the machine ran each setting's servers (on a VM, time its host took from them counts as the
  // guest's CPU time), and the whole divided by it takes that out.
  const database = "database (wasm)";
  if (a[database] && b[database]) {
    const speed = b[database] / a[database];
    lines.push(
      `perf samples per server, ${names[1]} / ${names[0]}, per sample of the database's work (the same ` +
        `statements in both): ${(otherTotal / baseTotal / speed).toFixed(3)}× (the database's own ratio ${speed.toFixed(3)}×)`,
    );
  }
  for (const kind of PERF_KINDS)
    lines.push(
      `perf, ${kind}: ${a[kind].toFixed(0)} → ${b[kind].toFixed(0)} ` +
        `(${a[kind] ? (b[kind] / a[kind]).toFixed(2) : "–"}×), ` +
        `${(((b[kind] - a[kind]) / baseTotal) * 100).toFixed(1)} points of the whole`,
    );
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const file of process.argv.slice(2))
    console.log(`${file}: ${kindsLine(samplesByKind(perfSymbolsOf(file)))}`);
}
