import type pg from "pg";
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import { DomainError } from "./errors";

export interface RateLimitSettings {
  /** Requests allowed per window and key. */
  points: number;
  /** Window length in seconds. */
  durationSeconds: number;
}

export interface RateLimiter {
  /** Consumes one request for `key`; throws `Throttled` (429) when the budget is spent. Returns headers to send. */
  consume(key: string): Promise<Record<string, string>>;
  /** Throws `Throttled` when `key` has spent its budget, consuming nothing (budgets spent only on failures). */
  assertNotSpent(key: string): Promise<void>;
}

function headersFor(settings: RateLimitSettings, res: RateLimiterRes): Record<string, string> {
  const reset = Math.max(0, Math.ceil(res.msBeforeNext / 1000));
  const remaining = Math.max(0, res.remainingPoints);
  return {
    "RateLimit-Policy": `"default";q=${settings.points};w=${settings.durationSeconds}`,
    RateLimit: `"default";r=${remaining};t=${reset}`,
  };
}

/**
 * Memory store on the embedded default (one process); PostgreSQL store when a server is shared.
 * `keyPrefix` separates limiters that share the store.
 */
export function createRateLimiter(
  settings: RateLimitSettings,
  pool?: pg.Pool,
  keyPrefix = "api",
): Promise<RateLimiter> {
  const opts = { points: settings.points, duration: settings.durationSeconds, keyPrefix };
  const throttled = (res: RateLimiterRes) => {
    const headers = headersFor(settings, res);
    headers["Retry-After"] = String(Math.max(1, Math.ceil(res.msBeforeNext / 1000)));
    return new DomainError(
      "Throttled",
      "Too many requests; retry after the time in Retry-After.",
      undefined,
      headers,
    );
  };
  return new Promise((resolve, reject) => {
    const make = (limiter: RateLimiterMemory | RateLimiterPostgres): RateLimiter => ({
      async consume(key) {
        try {
          return headersFor(settings, await limiter.consume(key));
        } catch (res) {
          if (!(res instanceof RateLimiterRes)) throw res;
          throw throttled(res);
        }
      },
      async assertNotSpent(key) {
        const res = await limiter.get(key);
        if (res && res.consumedPoints >= settings.points) throw throttled(res);
      },
    });
    if (!pool) return resolve(make(new RateLimiterMemory(opts)));
    const limiter: RateLimiterPostgres = new RateLimiterPostgres(
      { ...opts, storeClient: pool, tableName: "rate_limits", clearExpiredByTimeout: true },
      (err?: Error) => (err ? reject(err) : resolve(make(limiter))),
    );
  });
}
