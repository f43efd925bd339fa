import pg from "pg";

/**
 * The URL parameter that says a DATABASE_URL goes through a pooler in transaction mode (PgBouncer's
 * `pool_mode = transaction`): Prisma's own convention. Each transaction, or each statement outside
 * one, may then run on a different server connection, so nothing that lives in a session survives
 * between them: named prepared statements, LISTEN, session advisory locks, `SET`.
 */
export const POOLER_PARAMETER = "pgbouncer";

/** Whether `url` asks for transaction-pooler mode (`?pgbouncer=true`), and the URL pg is given (without it). */
export function poolerMode(url: string): { transactionPooler: boolean; connectionString: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { transactionPooler: false, connectionString: url };
  }
  const value = parsed.searchParams.get(POOLER_PARAMETER);
  if (value === null) return { transactionPooler: false, connectionString: url };
  parsed.searchParams.delete(POOLER_PARAMETER);
  return { transactionPooler: value === "true", connectionString: parsed.toString() };
}

/**
 * A pg `Client` class that sends every statement unnamed: a named prepared statement is parsed once per
 * server connection and then only bound, which behind a transaction pooler lands on a connection that
 * never saw it ("prepared statement … does not exist"), or on one that already has it ("… already
 * exists"). The fast path (fast-sql.ts) and rate-limiter-flexible both name theirs. An unnamed
 * statement is parsed, bound and run in one round trip that the pooler keeps on one connection.
 */
export function unnamedStatementsClientClass(Base: typeof pg.Client = pg.Client): typeof pg.Client {
  class UnnamedStatementsClient extends Base {}
  const query = Base.prototype.query as (...args: unknown[]) => unknown;
  (UnnamedStatementsClient.prototype as unknown as { query: (...args: unknown[]) => unknown }).query =
    function (this: pg.Client, ...args: unknown[]) {
      const first = args[0] as { name?: unknown; submit?: unknown } | null | undefined;
      if (first && typeof first === "object" && typeof first.submit !== "function" && first.name) {
        const { name: _unnamed, ...rest } = first;
        args[0] = rest;
      }
      return query.apply(this, args);
    };
  return UnnamedStatementsClient;
}
