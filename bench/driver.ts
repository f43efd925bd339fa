// The load driver: a separate process (forked by run.ts) that runs one workload against a service,
// closed loop at a fixed concurrency (peak) or open loop at a fixed arrival rate (latency at a load).
import { performance } from "node:perf_hooks";
import { createClient } from "./http";
import { type LatencySummary, Samples } from "./stats";
import { type DriverJob, Exhausted, type Step, type Workload } from "./workload";

export interface DriverResult {
  ops: number;
  errors: number;
  errorSamples: string[];
  /** Open loop: arrivals not started because `maxInFlight` operations were already running. */
  shed: number;
  elapsedMs: number;
  throughput: number;
  latency: LatencySummary;
  steps: Record<string, LatencySummary>;
  clientCpuMs: number;
  exhausted: boolean;
  produced: string[];
}

async function loadWorkload(job: DriverJob, client: ReturnType<typeof createClient>): Promise<Workload> {
  const items = job.items ? [...job.items] : [];
  if (job.side === "ours")
    return (await import("./workloads")).oursWorkload(job.workload, job.target as never, client, items);
  return (await import("./peer/workloads")).peerWorkload(job.workload, job.target as never, client);
}

export async function runJob(job: DriverJob): Promise<DriverResult> {
  // Open loop: arrivals beyond this many operations in flight are shed (counted, not started).
  const maxInFlight = Math.max(job.concurrency * 8, 64);
  // As many connections as operations may be in flight: an arrival never queues for a socket in the
  // client, so waiting happens where it would for independent wallets, at the server.
  const client = createClient(job.rate ? maxInFlight : Math.max(job.concurrency, 8));
  const workload = await loadWorkload(job, client);
  await workload.prepare?.();

  const latencies = new Samples();
  const steps = new Map<string, Samples>();
  const errorSamples: string[] = [];
  let errors = 0;
  let exhausted = false;
  const untimedStep: Step = (_name, fn) => fn();
  const timedStep: Step = async (name, fn) => {
    const t0 = performance.now();
    const value = await fn();
    const s = steps.get(name) ?? new Samples();
    steps.set(name, s);
    s.add(performance.now() - t0);
    return value;
  };
  // `record`: whether this operation started (or was scheduled) inside the recorded window.
  const once = async (startedAt: number, record: boolean) => {
    try {
      await workload.iteration(record ? timedStep : untimedStep);
      if (record) latencies.add(performance.now() - startedAt);
    } catch (error) {
      if (error instanceof Exhausted) {
        exhausted = true;
        return;
      }
      if (record) {
        errors++;
        if (errorSamples.length < 5)
          errorSamples.push(String((error as Error).message ?? error).slice(0, 300));
      }
    }
  };
  // The parent samples the server's CPU and preemptions between these two marks, so warm-up work
  // (and the driver's own start) is not charged to the recorded operations.
  let cpu0 = process.cpuUsage();
  const startRecording = () => {
    if (workload.produced) workload.produced.length = 0;
    cpu0 = process.cpuUsage();
    process.send?.({ mark: "recording" });
  };

  let t0: number;
  let shed = 0;
  if (job.rate) {
    // Open loop: latency counts from the scheduled arrival, so a slow server cannot hide its queueing.
    // The warm-up runs at the same rate and flows straight into the recorded window: a warm-up at full
    // load would leave the server's garbage to the first recorded second, and none would leave this
    // process's code cold (its first second then ran at twice the CPU per flow and was most of the p99).
    const interval = 1000 / job.rate;
    let inFlight = 0;
    const started = performance.now();
    t0 = started + job.warmupMs;
    let next = started;
    let recording = false;
    const running = new Set<Promise<void>>();
    const end = t0 + job.durationMs;
    while (next < end && !exhausted) {
      const now = performance.now();
      if (!recording && now >= t0) {
        recording = true;
        startRecording();
      }
      while (next <= now && next < end) {
        const record = next >= t0;
        if (inFlight >= maxInFlight) {
          if (record) shed++;
        } else {
          inFlight++;
          const p = once(next, record).finally(() => {
            inFlight--;
            running.delete(p);
          });
          running.add(p);
        }
        next += interval;
      }
      await new Promise((r) => setTimeout(r, Math.max(0, Math.min(next - performance.now(), 5))));
    }
    await Promise.all(running);
  } else {
    const closedLoop = async (ms: number, record: boolean) => {
      const end = performance.now() + ms;
      await Promise.all(
        Array.from({ length: job.concurrency }, async () => {
          while (performance.now() < end && !exhausted) await once(performance.now(), record);
        }),
      );
    };
    // Warm-up (JIT, connection pool, caches) is not recorded.
    await closedLoop(job.warmupMs, false);
    startRecording();
    t0 = performance.now();
    await closedLoop(job.durationMs, true);
  }
  const elapsedMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  process.send?.({ mark: "recorded" });
  await client.close();
  const latency = latencies.summary();
  return {
    ops: latency.count,
    errors,
    errorSamples,
    shed,
    elapsedMs,
    throughput: (latency.count / elapsedMs) * 1000,
    latency,
    steps: Object.fromEntries([...steps].map(([k, v]) => [k, v.summary()])),
    clientCpuMs: (cpu.user + cpu.system) / 1000,
    exhausted,
    produced: workload.produced ?? [],
  };
}

if (process.send) {
  process.once("message", async (job: DriverJob) => {
    try {
      process.send!({ ok: true, result: await runJob(job) }, () => process.exit(0));
    } catch (error) {
      process.send!({ ok: false, error: String((error as Error).stack ?? error) }, () => process.exit(1));
    }
  });
}
