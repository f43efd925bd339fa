import type pg from "pg";

export type SqlParam = string | number | boolean | null | Date;

/**
 * Single statements sent straight to the driver, bypassing Prisma, for the few hot-path statements
 * that run outside interactive transactions (see docs/adr/0003-hot-path-sql.md: Prisma + adapter cost ~1 ms per
 * statement, the driver ~0.2 ms). Timestamps are exchanged as UTC on both sides, whatever the process
 * time zone: parameters as ISO strings, `timestamp` columns parsed as UTC.
 */
export interface FastSql {
  query<T = Record<string, unknown>>(
    text: string,
    params?: SqlParam[],
  ): Promise<{ rows: T[]; affected: number }>;
}

const TIMESTAMP_OID = 1114;
const parseUtcTimestamp = (value: string) => new Date(`${value.replace(" ", "T")}Z`);
const toDriver = (params: SqlParam[]) => params.map((p) => (p instanceof Date ? p.toISOString() : p));

/** Distinct statement texts kept as named prepared statements; beyond this, statements go unnamed. */
const MAX_PREPARED = 256;

export function pgFastSql(pool: pg.Pool, types: typeof pg.types): FastSql {
  const custom = {
    getTypeParser: ((oid: number, format?: string) =>
      oid === TIMESTAMP_OID
        ? parseUtcTimestamp
        : types.getTypeParser(oid, format as "text")) as typeof types.getTypeParser,
  };
  // Each distinct statement is a named prepared statement: parsed and planned once per connection, then
  // one bind/execute per call. Past MAX_PREPARED distinct texts, statements go unnamed.
  const names = new Map<string, string>();
  return {
    async query<T>(text: string, params: SqlParam[] = []) {
      let name = names.get(text);
      if (name === undefined && names.size < MAX_PREPARED) {
        name = `cred_fast_${names.size + 1}`;
        names.set(text, name);
      }
      const result = await pool.query({ name, text, values: toDriver(params), types: custom });
      return { rows: result.rows as T[], affected: result.rowCount ?? 0 };
    },
  };
}
