import type { ResolvedAddress } from "../shared/network-policy";

/** How the delivery worker paces and bounds its attempts. */
export interface DeliveryOptions {
  /**
   * Delay before each retry: entry k follows failed attempt k+1. After the last entry the delivery
   * fails. The default spans about a day (30 s … 12 h; nine attempts in all).
   */
  retryScheduleMs: number[];
  /** Random spread applied to each delay, as a fraction (0.2 = ±20 %). */
  jitter: number;
  /** Per-attempt timeout (connect, send, first byte and body). */
  attemptTimeoutMs: number;
  /**
   * How long a claimed delivery stays reserved for the worker that claimed it. Longer than the
   * attempt timeout; when a worker dies mid-attempt, another picks the delivery up after the lease.
   */
  leaseMs: number;
  /** Deliveries claimed per round. */
  batchSize: number;
  /** Host resolver for the delivery-time address check (tests); defaults to the system resolver. */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export const DEFAULT_DELIVERY_OPTIONS: DeliveryOptions = {
  retryScheduleMs: [30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR],
  jitter: 0.2,
  // Standard Webhooks recommends a timeout "somewhere between 15 and 30s".
  attemptTimeoutMs: 15 * SECOND,
  leaseMs: 60 * SECOND,
  batchSize: 20,
};

/**
 * A retry schedule for `maxAttempts` attempts in all (the first and `maxAttempts - 1` retries): the
 * first delays of `schedule`, and beyond its end more retries at its last delay (by default 12 h apart).
 */
export function retryScheduleFor(
  maxAttempts: number,
  schedule: readonly number[] = DEFAULT_DELIVERY_OPTIONS.retryScheduleMs,
): number[] {
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
    throw new RangeError("maxAttempts must be at least 1.");
  const last = schedule.at(-1);
  if (last === undefined) throw new RangeError("The schedule has no delay to repeat.");
  return Array.from({ length: maxAttempts - 1 }, (_, i) => schedule[i] ?? last);
}

/**
 * When to try again after failed attempt number `attempt` (1-based), or null when the schedule is
 * exhausted and the delivery fails.
 */
export function nextAttemptAt(
  attempt: number,
  options: Pick<DeliveryOptions, "retryScheduleMs" | "jitter">,
  now: Date,
  random: () => number = Math.random,
): Date | null {
  const base = options.retryScheduleMs[attempt - 1];
  if (base === undefined) return null;
  const spread = base * options.jitter * (2 * random() - 1);
  return new Date(now.getTime() + Math.max(0, Math.round(base + spread)));
}

/** The longest a receiver's `Retry-After` may push a retry out. */
export const MAX_RETRY_AFTER_MS = 24 * HOUR;

/**
 * The delay a receiver asked for with `Retry-After` (RFC 9110 §10.2.3: delay-seconds or an HTTP-date),
 * capped at a day; null when absent, unreadable or not in the future. Standard Webhooks: it "should be
 * taken into consideration when scheduling the next attempt".
 */
export function retryAfterMs(header: string | undefined, now: Date): number | null {
  const value = header?.trim();
  if (!value) return null;
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now.getTime();
  if (!Number.isFinite(ms) || ms <= 0) return null;
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

/** The scheduled retry, moved later when the receiver asked for a longer wait (never sooner). */
export function laterRetry(scheduled: Date | null, retryAfter: number | null, now: Date): Date | null {
  if (!scheduled || retryAfter === null) return scheduled;
  return new Date(Math.max(scheduled.getTime(), now.getTime() + retryAfter));
}
