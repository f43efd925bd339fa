import pg from "pg";

/** Told the duration of each statement a pool's connections run, in seconds (failed ones too). */
export type StatementObserver = (seconds: number) => void;

/**
 * A pg `Client` class whose `query` reports each statement's duration to `observe`: every statement of
 * the server passes through the pool's connections (Prisma's adapter, the fast path, migrations run by
 * the schema engine over the adapter), so this is the one place to measure them. The promise and
 * callback forms are timed; a submittable (a cursor or stream) is passed through untimed, as nothing
 * here uses one. The cost is two `performance.now()` calls and a callback per statement.
 */
export function timedClientClass(
  observe: StatementObserver,
  Base: typeof pg.Client = pg.Client,
): typeof pg.Client {
  class TimedClient extends Base {}
  const query = Base.prototype.query as (...args: unknown[]) => unknown;
  (TimedClient.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (
    this: pg.Client,
    ...args: unknown[]
  ) {
    const first = args[0] as { submit?: unknown } | undefined;
    if (first && typeof first.submit === "function") return query.apply(this, args);
    // performance.now() rather than hrtime.bigint(): no BigInt made per statement.
    const started = performance.now();
    const done = () => observe((performance.now() - started) / 1000);
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === "function") {
      args[last] = (...results: unknown[]) => {
        done();
        return (callback as (...r: unknown[]) => unknown)(...results);
      };
      return query.apply(this, args);
    }
    const result = query.apply(this, args) as Promise<unknown>;
    result.then(done, done);
    return result;
  };
  return TimedClient;
}
