import { type PGlite, parse, protocol } from "@electric-sql/pglite";
import type pg from "pg";

export type SqlParam = string | number | boolean | null | Date;

/**
 * Single statements sent straight to the driver, bypassing Prisma, for the few hot-path statements
 * that run outside interactive transactions (see docs/performance.md: Prisma + adapter cost ~1 ms per
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

/** Named prepared statements kept per PGlite instance; beyond this, statements are parsed each time. */
const MAX_PREPARED = 256;

const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
};

/**
 * PGlite's `query` enters its wasm backend six times per statement (parse, describe, bind, describe,
 * execute, sync) and plans the statement every time. Here each distinct statement text is parsed once
 * as a named prepared statement, and every call is ONE protocol message (bind, describe, execute, sync):
 * the plan is reused and the backend entered once. Same locks as `query`, so it never interleaves with
 * an open interactive transaction. Statement names are never reused, so one left behind by a failed call
 * cannot clash.
 */
export function pgliteFastSql(pglite: PGlite): FastSql {
  const { serialize } = protocol;
  const prepared = new Map<string, string>();
  let counter = 0;
  let parsers: PGlite["parsers"] | undefined;
  return {
    async query<T>(text: string, params: SqlParam[] = []) {
      await pglite.waitReady;
      parsers ??= { ...pglite.parsers, [TIMESTAMP_OID]: parseUtcTimestamp };
      const values = toDriver(params).map((v) => (v === null ? null : String(v)));
      return pglite._runExclusiveTransaction(() =>
        pglite._runExclusiveQuery(async () => {
          let name = prepared.get(text);
          const parts: Uint8Array[] = [];
          if (name === undefined) {
            name = prepared.size < MAX_PREPARED ? `cred_fast_${++counter}` : "";
            parts.push(serialize.parse({ name, text }));
          }
          parts.push(
            serialize.bind({ statement: name, values }),
            serialize.describe({ type: "P" }),
            serialize.execute({}),
            serialize.sync(),
          );
          const { messages } = await pglite.execProtocol(concat(parts));
          if (name && !prepared.has(text)) prepared.set(text, name);
          const [result] = parse.parseResults(messages, parsers!);
          return { rows: (result?.rows ?? []) as T[], affected: result?.affectedRows ?? 0 };
        }),
      );
    },
  };
}

export function pgFastSql(pool: pg.Pool, types: typeof pg.types): FastSql {
  const custom = {
    getTypeParser: ((oid: number, format?: string) =>
      oid === TIMESTAMP_OID
        ? parseUtcTimestamp
        : types.getTypeParser(oid, format as "text")) as typeof types.getTypeParser,
  };
  return {
    async query<T>(text: string, params: SqlParam[] = []) {
      const result = await pool.query({ text, values: toDriver(params), types: custom });
      return { rows: result.rows as T[], affected: result.rowCount ?? 0 };
    },
  };
}

/**
 * Where a single statement should go: straight to the driver when `db` is the root client, or through
 * the open Prisma transaction when it is one (so the statement joins that transaction). Statements
 * report what they changed with RETURNING, so `affected` is the number of rows returned.
 */
export function sqlFor(db: unknown, root: unknown, fast: FastSql): FastSql {
  if (db === root) return fast;
  const tx = db as { $queryRawUnsafe<T>(text: string, ...values: unknown[]): Promise<T[]> };
  return {
    async query<T>(text: string, params: SqlParam[] = []) {
      const rows = await tx.$queryRawUnsafe<T>(text, ...params);
      return { rows, affected: rows.length };
    },
  };
}
