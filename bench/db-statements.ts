// `--db-statements`: the embedded database thread's time per SQL statement over a phase's recorded
// window, from the running totals the thread writes to EMBEDDED_STATEMENT_STATS
// (packages/db/src/embedded-thread/statement-stats.mjs) four times a second.
import fs from "node:fs";

type Totals = Map<string, { count: number; ms: number; slow: number }>;

/** One statement's share of a phase: executions and database-thread milliseconds per operation. */
export interface StatementShare {
  sql: string;
  executionsPerOp: number;
  msPerExecution: number;
  msPerOp: number;
  /** Runs that held the database thread for 15 ms or more (e.g. a WAL segment being created). */
  slowRuns: number;
}

const TOP = 12;

export function readStatementTotals(file: string): Totals {
  try {
    const { statements } = JSON.parse(fs.readFileSync(file, "utf8")) as {
      statements: { sql: string; count: number; ms: number; slow?: number }[];
    };
    return new Map(statements.map((s) => [s.sql, { count: s.count, ms: s.ms, slow: s.slow ?? 0 }]));
  } catch {
    return new Map(); // not written yet
  }
}

/**
 * The statements that took most of the database thread between two readings, per completed operation,
 * and after them any other statement that had a slow run.
 */
export function statementShares(before: Totals, after: Totals, ops: number): StatementShare[] {
  if (ops <= 0) return [];
  const shares: StatementShare[] = [];
  for (const [sql, end] of after) {
    const start = before.get(sql) ?? { count: 0, ms: 0, slow: 0 };
    const count = end.count - start.count;
    const ms = end.ms - start.ms;
    if (count > 0)
      shares.push({
        sql,
        executionsPerOp: count / ops,
        msPerExecution: ms / count,
        msPerOp: ms / ops,
        slowRuns: end.slow - start.slow,
      });
  }
  shares.sort((a, b) => b.msPerOp - a.msPerOp);
  return [...shares.slice(0, TOP), ...shares.slice(TOP).filter((s) => s.slowRuns > 0)];
}
