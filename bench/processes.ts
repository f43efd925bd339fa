import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface Service {
  name: string;
  baseUrl: string;
  child: ChildProcess;
  pid: number;
  /** Collected stderr/stdout (last 64 KiB), for error messages. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `node --import tsx <entry>` as a child (no tsx wrapper process, so the pid is the server's own
 * and its /proc figures are the server's) and waits until `readyPath` answers.
 */
export async function startService(options: {
  name: string;
  /** Node arguments: flags, then the script. */
  args: string[];
  cwd: string;
  port: number;
  env: Record<string, string>;
  readyPath: string;
  timeoutMs?: number;
  /** Also append everything the process prints to this file. */
  logFile?: string;
  /** A command that runs node (e.g. `valgrind --tool=callgrind`): node and its arguments follow it. */
  wrapper?: string[];
}): Promise<Service> {
  let out = "";
  const [command, ...args] = [...(options.wrapper ?? []), process.execPath, ...options.args];
  const child = spawn(command!, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // A bench that ends on an error would otherwise leave the service running, orphaned, and the next
  // run measure beside it.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  child.once("exit", () => process.off("exit", killOnExit));
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-65536);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  if (options.logFile) {
    const log = fs.createWriteStream(options.logFile, { flags: "a" });
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
  }
  const baseUrl = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${options.name} exited early:\n${out}`);
    try {
      const res = await fetch(baseUrl + options.readyPath);
      await res.arrayBuffer();
      if (res.status < 500) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${options.name} did not start in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name: options.name,
    baseUrl,
    child,
    pid: child.pid!,
    output: () => out,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((r) => child.once("exit", () => r()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const CLK_TCK = 100;

/** CPU seconds a process or thread has used, user and system apart. */
export interface CpuTimes {
  user: number;
  system: number;
}

/** The CPU times in a /proc `stat` line: utime and stime, its fields 14 and 15 (1-based), after the name. */
function cpuTimes(stat: string): CpuTimes {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { user: Number(fields[11]) / CLK_TCK, system: Number(fields[12]) / CLK_TCK };
}

/**
 * Memory and CPU of a process from /proc: RSS now, peak RSS (VmHWM), CPU seconds used so far, and how
 * often its main thread (the server's request thread) was preempted so far: the kernel took its core
 * while it could run (`nonvoluntary_ctxt_switches`).
 */
export function procStats(
  pid: number,
): { rssMb: number; hwmMb: number; cpuSeconds: number; preemptions: number } | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
    const times = cpuTimes(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
    const cpuSeconds = times.user + times.system;
    const preemptions = Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    return { rssMb: kb("VmRSS") / 1024, hwmMb: kb("VmHWM") / 1024, cpuSeconds, preemptions };
  } catch {
    return null;
  }
}

/**
 * CPU seconds used so far by each of a process's threads, summed by thread name (the main thread, V8's
 * workers for GC and compilation, libuv's pool, worker threads such as the embedded database's), with
 * user and system time apart.
 */
export function threadCpu(pid: number): Map<string, CpuTimes> {
  const byName = new Map<string, CpuTimes>();
  let tasks: string[] = [];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const tid of tasks) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = tid === String(pid) ? "main" : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const times = cpuTimes(stat);
      const sum = byName.get(name) ?? { user: 0, system: 0 };
      sum.user += times.user;
      sum.system += times.system;
      byName.set(name, sum);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byName;
}

/** Samples a process's RSS every `intervalMs` while a phase runs; returns the peak, the CPU used and the main thread's preemptions per second. */
export function sampleProcess(pid: number, intervalMs = 100) {
  const start = procStats(pid);
  const startThreads = threadCpu(pid);
  const startedAt = performance.now();
  let peakRssMb = start?.rssMb ?? 0;
  const timer = setInterval(() => {
    const s = procStats(pid);
    if (s && s.rssMb > peakRssMb) peakRssMb = s.rssMb;
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      const end = procStats(pid);
      if (end && end.rssMb > peakRssMb) peakRssMb = end.rssMb;
      const threads: Record<string, CpuTimes> = {};
      for (const [name, used] of threadCpu(pid)) {
        const before = startThreads.get(name) ?? { user: 0, system: 0 };
        threads[name] = { user: used.user - before.user, system: used.system - before.system };
      }
      return {
        threads,
        peakRssMb,
        hwmMb: end?.hwmMb ?? 0,
        cpuSeconds: end && start ? end.cpuSeconds - start.cpuSeconds : 0,
        preemptionsPerSecond:
          end && start ? ((end.preemptions - start.preemptions) * 1000) / (performance.now() - startedAt) : 0,
      };
    },
  };
}
