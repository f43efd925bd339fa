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

function headersFor(settings: RateLimitSettings, res: RateLimiterRes): Record<string, string> {
  const reset = Math.max(0, Math.ceil(res.msBeforeNext / 1000));
  const remaining = Math.max(0, res.remainingPoints);
  return {
    "RateLimit-Policy": `"default";q=${settings.points};w=${settings.durationSeconds}`,
    RateLimit: `"default";r=${remaining};t=${reset}`,
  };
}

/** Memory store on the embedded default (one process); PostgreSQL store when a server is shared. */
export function createRateLimiter(settings: RateLimitSettings, pool?: pg.Pool): Promise<RateLimiter> {
  const opts = { points: settings.points, duration: settings.durationSeconds, keyPrefix: "api" };
  return new Promise((resolve, reject) => {
    const make = (limiter: RateLimiterMemory | RateLimiterPostgres): RateLimiter => ({
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
    });
    if (!pool) return resolve(make(new RateLimiterMemory(opts)));
    const limiter: RateLimiterPostgres = new RateLimiterPostgres(
      { ...opts, storeClient: pool, tableName: "rate_limits", clearExpiredByTimeout: true },
      (err?: Error) => (err ? reject(err) : resolve(make(limiter))),
    );
  });
}
