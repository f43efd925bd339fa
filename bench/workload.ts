/** What every workload (ours or the peer's) gives the load driver. */
export interface Workload {
  /** Untimed preparation (keys, caches). */
  prepare?(): Promise<void>;
  /** One operation (a request or a whole flow); `step` times its parts. Throw on any error. */
  iteration(step: Step): Promise<void>;
  /** Values the workload produced for later workloads (e.g. transaction ids). */
  produced?: string[];
}

export type Step = <T>(name: string, fn: () => Promise<T>) => Promise<T>;

/** Thrown when a workload has used up the items it was given (e.g. credentials to revoke). */
export class Exhausted extends Error {}

export interface DriverJob {
  side: "ours" | "peer";
  workload: string;
  target: unknown;
  concurrency: number;
  durationMs: number;
  warmupMs: number;
  /** Open loop at this many operations per second; closed loop (peak) when absent. */
  rate?: number;
  items?: string[];
}
