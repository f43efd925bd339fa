/** Command line of `pnpm bench`. */

/** The peers `pnpm bench` can run beside ours: the oid4vc-ts library peer and the Credo 0.6 product. */
export type PeerName = "library" | "credo";

export interface BenchOptions {
  /** Seconds per timed phase (peak and 70%-of-peak run each get this long). */
  duration: number;
  /** Concurrent flows in flight in the closed-loop (peak) phase. */
  concurrency: number;
  db: "embedded" | "postgres";
  smoke: boolean;
  /** Skip the peer implementations (same as `--peer none`). */
  noPeer: boolean;
  /** The peers measured beside ours, in this order: the oid4vc-ts library peer and the Credo 0.6 product. */
  peers: PeerName[];
  /** Skip the open-loop run at 70% of peak. */
  noLatencyRun: boolean;
  /** Run the open loop at this many operations per second instead of 70% of the measured peak (A/B runs). */
  rate: number | undefined;
  /** Run the server under `--cpu-prof` and summarise the profile. */
  cpuProf: boolean;
  /**
   * `--perf`: with `--observability` or `--keys`, record each server's CPU time with Linux perf (every
   * thread) and report it by kind of work (perf-kinds.ts), per server and setting against setting.
   */
  perf: boolean;
  /** Write V8 CPU profiles of the load driver (one per phase) into this directory. */
  driverCpuProf: string | undefined;
  /** Only these workloads (comma-separated ids), when given. */
  only: string[] | undefined;
  /** Extra V8/Node flags for our server (experiments, e.g. `--trace-gc`), after the `pnpm start` ones. */
  serverNodeArgs: string[];
  /**
   * Where our server's stdout and stderr go, in full (otherwise only its last 64 KB are kept for errors).
   * In the alternated runs each server gets a file of its own: `<file>.<run>-<setting>-<round>`.
   */
  serverLog: string | undefined;
  /** Time per SQL statement in the embedded database's thread, per phase (embedded only). */
  dbStatements: boolean;
  /** Rows of each table the `lists` workload seeds (default 1,000,000; 10,000 with --smoke). */
  seedRows: number | undefined;
  /**
   * `--api-processes 1,2`: the scale-out topology (HAProxy, PgBouncer, a webhook worker) with each of
   * these numbers of API processes in turn, through the balancer and the pooler (topology-bench.ts).
   */
  apiProcesses: number[] | undefined;
  /**
   * `--observability`: our issuance and verification flows with metrics and tracing off and on, alternated
   * in one run (observability-bench.ts).
   */
  observability: boolean;
  /** With `--observability`: the share of traces sampled when on (1 = every span, the default). */
  traceRatio: number;
  /**
   * `--parts metrics,tracing`: with `--observability`, what "on" turns on (default both). One part alone
   * splits the cost; `none` runs the same server twice, an A/A check of the bench's own bias.
   */
  observabilityParts: ("metrics" | "tracing")[];
  /**
   * `--parts each`: with `--observability`, four settings alternated in every round instead of two: off,
   * metrics alone, tracing alone, and both ("on"), each part's ratio to off measured on the same
   * machine's minutes as the whole's.
   */
  observabilityEach: boolean;
  /**
   * `--rounds`: with `--observability` or `--keys`, how many rounds of each setting (default 2; 1 with
   * --smoke). Rounds alternate the settings' order (ABBA), and each round's ratio is reported with the
   * median and spread over the rounds.
   */
  rounds: number | undefined;
  /**
   * `--warmup <s>`: with `--observability` or `--keys`, seconds of load on each server before its
   * window is recorded (default 12: on this machine a fresh server's CPU per flow keeps falling for ~10 s
   * as V8 optimises its code and the embedded database's WebAssembly).
   */
  warmup: number;
  /**
   * `--bursts K`: with `--observability` or `--keys`, a round's servers run side by side and each is
   * recorded in K bursts, taking turns, instead of one after the other.
   */
  bursts: number | undefined;
  /**
   * `--keys pkcs11`: our issuance and verification flows with the issuer's keys in software and in a
   * SoftHSM2 token, alternated in one run (key-custody-bench.ts).
   */
  keys: "pkcs11" | undefined;
}

export function parseArgs(argv: string[]): BenchOptions {
  const options: BenchOptions = {
    duration: 10,
    concurrency: 16,
    db: "embedded",
    smoke: false,
    noPeer: false,
    peers: ["library", "credo"],
    noLatencyRun: false,
    rate: undefined,
    cpuProf: false,
    perf: false,
    driverCpuProf: undefined,
    only: undefined,
    serverNodeArgs: [],
    serverLog: undefined,
    dbStatements: false,
    seedRows: undefined,
    apiProcesses: undefined,
    observability: false,
    traceRatio: 1,
    observabilityParts: ["metrics", "tracing"],
    observabilityEach: false,
    rounds: undefined,
    warmup: 12,
    bursts: undefined,
    keys: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === "--") continue;
    else if (arg === "--duration") options.duration = Number(value());
    else if (arg === "--concurrency") options.concurrency = Number(value());
    else if (arg === "--db") {
      const db = value();
      if (db !== "embedded" && db !== "postgres") throw new Error("--db is embedded or postgres");
      options.db = db;
    } else if (arg === "--smoke") options.smoke = true;
    else if (arg === "--no-peer") options.noPeer = true;
    else if (arg === "--peer") {
      const peer = value();
      if (peer === "all") options.peers = ["library", "credo"];
      else if (peer === "library" || peer === "credo") options.peers = [peer];
      else if (peer === "none") options.noPeer = true;
      else throw new Error("--peer is library, credo, all or none");
    } else if (arg === "--no-latency-run") options.noLatencyRun = true;
    else if (arg === "--cpu-prof") options.cpuProf = true;
    else if (arg === "--perf") options.perf = true;
    else if (arg === "--rate") options.rate = Number(value());
    else if (arg === "--driver-cpu-prof") options.driverCpuProf = value();
    else if (arg === "--only") options.only = value().split(",");
    else if (arg === "--server-node-arg") options.serverNodeArgs.push(value());
    else if (arg === "--server-log") options.serverLog = value();
    else if (arg === "--db-statements") options.dbStatements = true;
    else if (arg === "--seed-rows") options.seedRows = Number(value());
    else if (arg === "--observability") options.observability = true;
    else if (arg === "--trace-ratio") options.traceRatio = Number(value());
    else if (arg === "--parts") {
      const parts = value().split(",");
      options.observabilityEach = parts.length === 1 && parts[0] === "each";
      if (options.observabilityEach) options.observabilityParts = ["metrics", "tracing"];
      else if (parts.length === 1 && parts[0] === "none") options.observabilityParts = [];
      else if (parts.every((p) => p === "metrics" || p === "tracing"))
        options.observabilityParts = [...new Set(parts as ("metrics" | "tracing")[])];
      else throw new Error("--parts is metrics, tracing, metrics,tracing, none or each");
    } else if (arg === "--rounds") options.rounds = Number(value());
    else if (arg === "--warmup") options.warmup = Number(value());
    else if (arg === "--bursts") options.bursts = Number(value());
    else if (arg === "--keys") {
      if (value() !== "pkcs11") throw new Error("--keys is pkcs11 (software keys are the default)");
      options.keys = "pkcs11";
    } else if (arg === "--api-processes") options.apiProcesses = value().split(",").map(Number);
    else if (arg === "--help" || arg === "-h") {
      process.stdout.write(
        "pnpm bench [--duration 10] [--concurrency 16] [--db embedded|postgres] [--smoke]\n" +
          "           [--peer library|credo|all|none] [--no-peer]\n" +
          "           [--no-latency-run] [--rate <ops/s>] [--cpu-prof] [--only create,issuance,verification,revoke,reads,lists]\n" +
          "           [--server-node-arg <flag>]... [--server-log <file>] [--driver-cpu-prof <dir>] [--db-statements]\n" +
          "           [--seed-rows <n>]\n" +
          "pnpm bench --db postgres --api-processes 1,2 [--duration 10] [--concurrency 16] [--only issuance,verification,revoke]\n" +
          "pnpm bench --observability [--db embedded|postgres] [--duration 10] [--concurrency 16] [--only issuance,verification] [--trace-ratio 1] [--rounds 2]\n" +
          "           [--parts metrics,tracing|metrics|tracing|none|each] [--warmup 12] [--bursts K] [--perf]\n" +
          "pnpm bench --keys pkcs11 [--db embedded|postgres] [--duration 10] [--concurrency 16] [--only issuance,verification] [--rounds 2] [--warmup 12] [--bursts K]\n",
      );
      process.exit(0);
    } else throw new Error(`unknown option ${arg}`);
  }
  if (options.smoke) {
    // CI: every workload once, briefly (no 70%-of-peak run); the whole smoke stays well under a minute.
    options.duration = Math.min(options.duration, 1);
    options.concurrency = Math.min(options.concurrency, 4);
    options.noLatencyRun = true;
  }
  if (options.noPeer) options.peers = [];
  if (!(options.duration > 0) || !(options.concurrency >= 1)) throw new Error("bad --duration/--concurrency");
  if (options.dbStatements && options.db !== "embedded") {
    throw new Error("--db-statements times the embedded database's thread; use it with --db embedded");
  }
  if (options.rate !== undefined && !(options.rate > 0)) throw new Error("bad --rate");
  if (options.apiProcesses) {
    if (!options.apiProcesses.every((n) => Number.isInteger(n) && n >= 1 && n <= 8))
      throw new Error("bad --api-processes (a comma-separated list of 1 to 8, e.g. 1,2)");
    if (options.db !== "postgres")
      throw new Error("--api-processes runs the topology on PostgreSQL behind PgBouncer: add --db postgres");
  }
  if ([options.observability, options.apiProcesses, options.keys].filter(Boolean).length > 1)
    throw new Error("--observability, --api-processes and --keys are runs of their own: pick one");
  if (!(options.traceRatio > 0 && options.traceRatio <= 1))
    throw new Error("bad --trace-ratio (above 0, at most 1)");
  if (options.rounds !== undefined) {
    if (!(Number.isInteger(options.rounds) && options.rounds >= 1 && options.rounds <= 20))
      throw new Error("bad --rounds (an integer from 1 to 20)");
    if (!options.observability && !options.keys)
      throw new Error("--rounds is for the alternated runs: --observability or --keys");
  }
  if (!(options.warmup >= 0 && options.warmup <= 600)) throw new Error("bad --warmup (seconds, 0 to 600)");
  if (options.perf && !options.observability && !options.keys)
    throw new Error("--perf is for the alternated runs: --observability or --keys");
  if (options.bursts !== undefined) {
    if (!(Number.isInteger(options.bursts) && options.bursts >= 1 && options.bursts <= 100))
      throw new Error("bad --bursts (an integer from 1 to 100)");
    if (!options.observability && !options.keys)
      throw new Error("--bursts is for the alternated runs: --observability or --keys");
  }
  if (options.seedRows !== undefined && !(Number.isInteger(options.seedRows) && options.seedRows >= 100))
    throw new Error("bad --seed-rows (an integer, at least 100)");
  return options;
}
