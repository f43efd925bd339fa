/** How the client waits out 429 `Throttled` answers. */
export interface RetryOptions {
  /** Further attempts after a 429 (default 2; 0 turns retrying off). */
  maxRetries?: number;
  /**
   * The longest single wait in milliseconds (default 10 000). A `Retry-After` asking for more is not
   * waited for: the 429 is returned (and thrown as `CredApiError` with `retryAfterSeconds`).
   */
  maxDelayMs?: number;
  /** The wait when a 429 carries no usable `Retry-After` (default 1 000 ms). */
  defaultDelayMs?: number;
}

/** Milliseconds a `Retry-After` value asks for: delta-seconds or an HTTP date; null when unusable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * `fetchImpl` that repeats a request answered 429, after the `Retry-After` the answer names, at most
 * `maxRetries` times and never waiting longer than `maxDelayMs` at once. A throttled request was not
 * processed, so repeating it is safe for every method. Other answers are returned as they are.
 */
export function retryingFetch(
  fetchImpl: (request: Request) => Promise<Response>,
  options: RetryOptions = {},
): (request: Request) => Promise<Response> {
  const maxRetries = options.maxRetries ?? 2;
  const maxDelayMs = options.maxDelayMs ?? 10_000;
  const defaultDelayMs = options.defaultDelayMs ?? 1_000;
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= maxRetries;
      // A body can be read once: keep a copy for the next attempt.
      const spare = last ? undefined : request.clone();
      const response = await fetchImpl(request);
      if (response.status !== 429 || !spare) return response;
      const delay = retryAfterMs(response.headers.get("retry-after")) ?? defaultDelayMs;
      if (delay > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(delay, request.signal);
      request = spare;
    }
  };
}
