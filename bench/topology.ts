// The scale-out topology of docs/operations.md on one machine, from Debian's packages: N API processes and
// M webhook workers behind HAProxy (health checks on /readyz), PostgreSQL behind PgBouncer in transaction
// mode, with a direct connection for migrations and LISTEN. Shared by apps/api/test/topology.test.ts and
// `pnpm bench --api-processes`.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { API_DIR, startCommand } from "./ours";
import { freshPostgresDatabase } from "./postgres";
import { freePort, procStats, type Service, startService } from "./processes";

const BINARIES = { haproxy: ["/usr/sbin/haproxy"], pgbouncer: ["/usr/sbin/pgbouncer"] } as const;

/** Where Debian's haproxy and pgbouncer are (their packages' paths, else the PATH). */
function binary(name: keyof typeof BINARIES): string | undefined {
  const candidates = [
    ...BINARIES[name],
    ...(process.env.PATH ?? "").split(":").map((dir) => path.join(dir, name)),
  ];
  return candidates.find((file) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The programs the topology needs that this machine lacks (`apt-get install haproxy pgbouncer`). */
export function missingTopologyBinaries(): string[] {
  return (Object.keys(BINARIES) as (keyof typeof BINARIES)[]).filter((name) => !binary(name));
}

export interface TopologyOptions {
  apiProcesses: number;
  workers: number;
  /** Extra environment for the API processes and the workers. */
  env?: Record<string, string>;
  /** Health check interval of the load balancer (ms). */
  checkIntervalMs?: number;
}

/** A process of the topology other than the API's (a worker, haproxy, pgbouncer). */
interface Child {
  child: ChildProcess;
  output(): string;
}

function spawnChild(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined> },
) {
  let out = "";
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: (options.env ?? process.env) as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-65536);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  return { child, output: () => out } satisfies Child;
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  child?: Child,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && child.child.exitCode !== null) throw new Error(`${what}: exited early\n${child.output()}`);
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: timed out${child ? `\n${child.output()}` : ""}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const portOpen = (port: number) =>
  new Promise<true | undefined>((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(undefined));
  });

async function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM") {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

function haproxyConfig(o: { dir: string; port: number; apiPorts: number[]; checkIntervalMs: number }) {
  const inter = `${o.checkIntervalMs}ms`;
  return `global
  maxconn 4096
  stats socket ${path.join(o.dir, "haproxy.sock")} mode 600 level admin

defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout http-keep-alive 10s
  # A check's answer may take this long (without it, the interval: a busy process would be marked down).
  timeout check 2s
  # A connection refused (a process stopped or restarting) is tried again on another server; a request
  # already sent is never repeated by the balancer (retry-on stays conn-failure): clients retry with an
  # Idempotency-Key.
  retries 3
  option redispatch

frontend api
  bind 127.0.0.1:${o.port}
  option forwardfor
  default_backend api

backend api
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  http-response set-header X-Served-By %s
  default-server inter ${inter} fastinter ${inter} downinter ${inter} rise 2 fall 2
${o.apiPorts.map((p, i) => `  server api${i + 1} 127.0.0.1:${p} check`).join("\n")}
`;
}

function pgbouncerConfig(o: { dir: string; port: number; database: string; server: URL }) {
  return `[databases]
${o.database} = host=${o.server.hostname} port=${o.server.port || 5432} dbname=${o.database}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${o.port}
unix_socket_dir =
auth_type = scram-sha-256
auth_file = ${path.join(o.dir, "userlist.txt")}
pool_mode = transaction
max_client_conn = 500
default_pool_size = 20
server_lifetime = 3600
`;
}

export interface CpuSnapshot {
  /** CPU seconds per pid, with the component it belongs to. */
  pids: Map<number, { component: CpuComponent; seconds: number }>;
}
export type CpuComponent = "api" | "worker" | "haproxy" | "pgbouncer" | "postgres";

export interface Topology {
  /** The load balancer's origin: PUBLIC_BASE_URL of every process. */
  baseUrl: string;
  /** The bootstrap API key (all tenant scopes). */
  apiKey: string;
  /** PostgreSQL itself (this run's database), for checks outside the API. */
  directUrl: string;
  /** Through PgBouncer, as the API processes have it. */
  pooledUrl: string;
  /** api1…apiN (haproxy's server names). */
  apiNames: string[];
  /** An API process's own origin (bypassing the balancer). */
  apiUrl(index: number): string;
  /** The running API process at `index`, if any. */
  api(index: number): Service | undefined;
  /** Sends `signal` to API process `index` and waits for it to exit. */
  stopApi(index: number, signal?: NodeJS.Signals): Promise<void>;
  /** Starts API process `index` again on its port and waits until the balancer sends it requests. */
  startApi(index: number): Promise<void>;
  /** haproxy's view of each API server: `UP`, `DOWN`, `UP 1/2`, … */
  serverStatus(): Promise<Record<string, string>>;
  waitForStatus(name: string, status: "UP" | "DOWN", timeoutMs?: number): Promise<void>;
  /** CPU used so far by every process of the topology, PostgreSQL's backends of this database included. */
  cpu(): Promise<CpuSnapshot>;
  /** Everything the processes printed, for a failure message. */
  logs(): string;
  stop(): Promise<void>;
}

/** CPU seconds per component between two snapshots (a process that appeared meanwhile counts whole). */
export function cpuBetween(a: CpuSnapshot, b: CpuSnapshot): Record<CpuComponent, number> {
  const total: Record<CpuComponent, number> = { api: 0, worker: 0, haproxy: 0, pgbouncer: 0, postgres: 0 };
  for (const [pid, now] of b.pids) total[now.component] += now.seconds - (a.pids.get(pid)?.seconds ?? 0);
  return total;
}

/**
 * Starts the topology on a fresh database of the server in BENCH_POSTGRES_URL or TEST_POSTGRES_URL:
 * PgBouncer, HAProxy, the API processes (the first alone, so that it migrates; the others together),
 * then the workers. Resolves once the balancer has every API process up.
 */
export async function startTopology(options: TopologyOptions): Promise<Topology> {
  const missing = missingTopologyBinaries();
  if (missing.length)
    throw new Error(`the topology needs ${missing.join(" and ")} (apt-get install ${missing.join(" ")})`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cred-topology-"));
  // PgBouncer refuses to run as root; as root it runs as nobody, which must read its files.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) fs.chmodSync(dir, 0o755);
  const database = await freshPostgresDatabase("topology");
  const direct = new URL(database.url);
  const children: Child[] = [];
  const apis: (Service | undefined)[] = [];
  const stopAll = async () => {
    await Promise.all(apis.map((s) => s?.stop()));
    for (const c of children.reverse()) await stopChild(c.child);
    await database.drop().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const poolerPort = await freePort();
    fs.writeFileSync(
      path.join(dir, "userlist.txt"),
      `"${decodeURIComponent(direct.username)}" "${decodeURIComponent(direct.password)}"\n`,
      { mode: asRoot ? 0o644 : 0o600 },
    );
    fs.writeFileSync(
      path.join(dir, "pgbouncer.ini"),
      pgbouncerConfig({ dir, port: poolerPort, database: database.name, server: direct }),
      { mode: 0o644 },
    );
    const pooler = spawnChild(binary("pgbouncer")!, [...(asRoot ? ["-u", "nobody"] : []), "pgbouncer.ini"], {
      cwd: dir,
    });
    children.push(pooler);
    const pooled = new URL(database.url);
    pooled.port = String(poolerPort);
    pooled.searchParams.set("pgbouncer", "true");
    await until("pgbouncer", () => portOpen(poolerPort), 10_000, pooler);

    const apiPorts = await Promise.all(Array.from({ length: options.apiProcesses }, () => freePort()));
    const lbPort = await freePort();
    const cfg = path.join(dir, "haproxy.cfg");
    fs.writeFileSync(
      cfg,
      haproxyConfig({ dir, port: lbPort, apiPorts, checkIntervalMs: options.checkIntervalMs ?? 300 }),
    );
    const haproxy = spawnChild(binary("haproxy")!, ["-db", "-f", cfg], { cwd: dir });
    children.push(haproxy);
    await until("haproxy", () => portOpen(lbPort), 10_000, haproxy);
    const baseUrl = `http://127.0.0.1:${lbPort}`;

    const start = startCommand();
    const masterKey = randomBytes(32).toString("base64");
    const dataDir = path.join(dir, "data");
    const env = {
      ...start.env,
      HOST: "127.0.0.1",
      PUBLIC_BASE_URL: baseUrl,
      DATA_DIR: dataDir,
      DATABASE_URL: pooled.toString(),
      DIRECT_DATABASE_URL: database.url,
      MASTER_KEY: masterKey,
      LOG_LEVEL: "warn",
      RATE_LIMIT_POINTS: "10000000",
      WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
      NODE_ENV: "development",
      RUN_WORKER: options.workers > 0 ? "false" : "true",
      ...options.env,
    };
    const launchApi = async (index: number) => {
      apis[index] = await startService({
        name: `api${index + 1}`,
        args: start.args,
        cwd: API_DIR,
        port: apiPorts[index]!,
        readyPath: "/readyz",
        env: { ...env, PORT: String(apiPorts[index]) },
      });
    };
    await launchApi(0);
    await Promise.all(apiPorts.slice(1).map((_, i) => launchApi(i + 1)));
    for (let i = 0; i < options.workers; i++) {
      const worker = spawnChild(process.execPath, ["dist/worker-main.mjs"], {
        cwd: API_DIR,
        env: { ...process.env, ...env, LOG_LEVEL: "info" },
      });
      children.push(worker);
      await until(
        "webhook worker",
        async () => (worker.output().includes("webhook worker started") ? true : undefined),
        30_000,
        worker,
      );
    }
    const boot = JSON.parse(fs.readFileSync(path.join(dataDir, "bootstrap.json"), "utf8")) as {
      apiKey: string;
    };
    const workers = children.slice(2);

    const serverStatus = async (): Promise<Record<string, string>> => {
      const csv = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(path.join(dir, "haproxy.sock"));
        let out = "";
        socket.on("data", (c) => {
          out += c;
        });
        socket.on("end", () => resolve(out));
        socket.on("error", reject);
        socket.write("show stat\n");
      });
      const status: Record<string, string> = {};
      for (const line of csv.split("\n")) {
        const f = line.split(",");
        if (f[0] === "api" && f[1]?.startsWith("api")) status[f[1]] = f[17] ?? "";
      }
      return status;
    };
    const waitForStatus = (name: string, status: "UP" | "DOWN", timeoutMs = 30_000) =>
      until(
        `haproxy marking ${name} ${status}`,
        async () => ((await serverStatus())[name] === status ? true : undefined),
        timeoutMs,
      ).then(() => {});
    await Promise.all(apiPorts.map((_, i) => waitForStatus(`api${i + 1}`, "UP")));

    const postgresPids = async (): Promise<number[]> => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
          [database.name],
        );
        return rows.map((r) => r.pid);
      } finally {
        await client.end();
      }
    };

    return {
      baseUrl,
      apiKey: boot.apiKey,
      directUrl: database.url,
      pooledUrl: pooled.toString(),
      apiNames: apiPorts.map((_, i) => `api${i + 1}`),
      apiUrl: (index) => `http://127.0.0.1:${apiPorts[index]}`,
      api: (index) => apis[index],
      async stopApi(index, signal = "SIGTERM") {
        const service = apis[index];
        apis[index] = undefined;
        if (!service) return;
        if (signal === "SIGTERM") return service.stop();
        await stopChild(service.child, signal);
      },
      async startApi(index) {
        await launchApi(index);
        await waitForStatus(`api${index + 1}`, "UP");
      },
      serverStatus,
      waitForStatus,
      async cpu() {
        const pids = new Map<number, { component: CpuComponent; seconds: number }>();
        const add = (pid: number | undefined, component: CpuComponent) => {
          const stats = pid ? procStats(pid) : null;
          if (pid && stats) pids.set(pid, { component, seconds: stats.cpuSeconds });
        };
        for (const s of apis) add(s?.pid, "api");
        for (const w of workers) add(w.child.pid, "worker");
        add(haproxy.child.pid, "haproxy");
        add(pooler.child.pid, "pgbouncer");
        for (const pid of await postgresPids()) add(pid, "postgres");
        return { pids };
      },
      logs: () =>
        [
          ...apis.map((s, i) => `--- api${i + 1}\n${s?.output() ?? "(stopped)"}`),
          ...children.map((c, i) => `--- ${["pgbouncer", "haproxy"][i] ?? `worker${i - 1}`}\n${c.output()}`),
        ].join("\n"),
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
