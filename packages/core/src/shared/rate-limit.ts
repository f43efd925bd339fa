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
}

/** A rate-limiter-flexible limiter over the process's store (see `openLimiterStore`). */
export type LimiterStore = RateLimiterMemory | RateLimiterPostgres;

/**
 * Memory store on the embedded default (one process); PostgreSQL store (`rate_limits`) when a server is
 * shared. `keyPrefix` separates limiters that share the store; keys must stay under 255 characters
 * with it (the table's key column).
 */
export function openLimiterStore(
  options: { keyPrefix: string; points: number; durationSeconds: number },
  pool?: pg.Pool,
): Promise<LimiterStore> {
  const opts = { points: options.points, duration: options.durationSeconds, keyPrefix: options.keyPrefix };
  if (!pool) return Promise.resolve(new RateLimiterMemory(opts));
  return new Promise((resolve, reject) => {
    const limiter: RateLimiterPostgres = new RateLimiterPostgres(
      { ...opts, storeClient: pool, tableName: "rate_limits", clearExpiredByTimeout: true },
      (err?: Error) => (err ? reject(err) : resolve(limiter)),
    );
  });
}

function headersFor(settings: RateLimitSettings, res: RateLimiterRes): Record<string, string> {
  const reset = Math.max(0, Math.ceil(res.msBeforeNext / 1000));
  const remaining = Math.max(0, res.remainingPoints);
  return {
    "RateLimit-Policy": `"default";q=${settings.points};w=${settings.durationSeconds}`,
    RateLimit: `"default";r=${remaining};t=${reset}`,
  };
}

/** Requests per key and window (the API keys' budget); `keyPrefix` separates limiters that share the store. */
export async function createRateLimiter(
  settings: RateLimitSettings,
  pool?: pg.Pool,
  keyPrefix = "api",
): Promise<RateLimiter> {
  const limiter = await openLimiterStore(
    { keyPrefix, points: settings.points, durationSeconds: settings.durationSeconds },
    pool,
  );
  return {
    async consume(key) {
      try {
        return headersFor(settings, await limiter.consume(key));
      } catch (res) {
        if (!(res instanceof RateLimiterRes)) throw res;
        const headers = headersFor(settings, res);
        headers["Retry-After"] = String(Math.max(1, Math.ceil(res.msBeforeNext / 1000)));
        throw new DomainError(
          "Throttled",
          "Too many requests; retry after the time in Retry-After.",
          undefined,
          headers,
        );
      }
    },
  };
}
