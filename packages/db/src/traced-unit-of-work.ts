import type { FastSql } from "./fast-sql";
import type { Db, UnitOfWork } from "./unit-of-work";

/** What a statement's span records: never the values bound to it. */
export interface TracedStatement {
  /** The SQL text with its placeholders, when this layer sees it (the fast path, raw statements). */
  text?: string;
  /** `SELECT`, `INSERT`, … for SQL; the Prisma operation (`findUnique`, …) for a model call. */
  operation: string;
  /** The Prisma model a model call reads or writes. */
  collection?: string;
}

/** Runs one statement (`run`) inside a span of the caller's, whose parent the caller holds. */
export type StatementTracer = <T>(statement: TracedStatement, run: () => Promise<T>) => Promise<T>;

/**
 * What a span records of a statement, by the statement's text: the texts are the code's own constants, so
 * a few hundred at most, each worked out once.
 */
const statements = new Map<string, TracedStatement>();
const MAX_STATEMENTS = 1_000;

/** The first word of a statement, upper-cased: its operation (`SELECT`, `WITH`, …). */
export function sqlOperation(text: string): string {
  const match = /^\s*([A-Za-z]+)/.exec(text);
  return match ? match[1]!.toUpperCase() : "SQL";
}

/**
 * A statement's text as a span records it: its line breaks and their indentation made one space, so a
 * trace shows it on one line and each sampled span exports (and the exporter encodes) fewer bytes. A
 * break inside a string literal would be shown as a space too: the code's statements have none.
 */
export function compactSql(text: string): string {
  return text.replace(/[ \t]*[\r\n]\s*/g, " ").trim();
}

/** The statement a span records for `text`: worked out once per text and shared, never changed. */
export function tracedSqlStatement(text: string): TracedStatement {
  let statement = statements.get(text);
  if (statement !== undefined) return statement;
  statement = Object.freeze({ text: compactSql(text), operation: sqlOperation(text) });
  // An unsafe raw statement's text could vary without end: the cache starts over instead of growing.
  if (statements.size >= MAX_STATEMENTS) statements.clear();
  statements.set(text, statement);
  return statement;
}

/** A tagged template's text with `$1`, `$2`, … where its values go (Prisma numbers them the same way). */
function templateText(strings: TemplateStringsArray): string {
  let text = strings[0] ?? "";
  for (let i = 1; i < strings.length; i++) text += `$${i}${strings[i]}`;
  return text;
}

const RAW = new Set(["$queryRaw", "$executeRaw", "$queryRawUnsafe", "$executeRawUnsafe"]);

/**
 * A Prisma client (or transaction client) whose model calls and raw statements each run through
 * `trace`. Model delegates are wrapped once per unit, on first use; anything else passes through.
 */
function tracedPrisma(prisma: Db, trace: StatementTracer): Db {
  const delegates = new Map<string | symbol, unknown>();
  return new Proxy(prisma, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof property !== "string") return value;
      if (RAW.has(property) && typeof value === "function") {
        return (first: unknown, ...rest: unknown[]) => {
          const text = Array.isArray(first)
            ? templateText(first as unknown as TemplateStringsArray)
            : String(first);
          return trace(tracedSqlStatement(text), () =>
            (value as (...args: unknown[]) => Promise<unknown>).call(target, first, ...rest),
          );
        };
      }
      // Other client methods run on the client itself, not on this proxy of it.
      if (typeof value === "function") return value.bind(target);
      if (property.startsWith("$") || value === null || typeof value !== "object") return value;
      let delegate = delegates.get(property);
      if (!delegate) {
        delegate = tracedDelegate(value as Record<string, unknown>, property, trace);
        delegates.set(property, delegate);
      }
      return delegate;
    },
  });
}

function tracedDelegate(delegate: Record<string, unknown>, model: string, trace: StatementTracer) {
  return new Proxy(delegate, {
    get(target, operation) {
      const value = Reflect.get(target, operation, target);
      if (typeof operation !== "string" || typeof value !== "function") return value;
      return (...args: unknown[]) =>
        trace({ operation, collection: model }, () =>
          (value as (...a: unknown[]) => Promise<unknown>).apply(target, args),
        );
    },
  });
}

function tracedSql(sql: FastSql, trace: StatementTracer): FastSql {
  return {
    query: (text, params) => trace(tracedSqlStatement(text), () => sql.query(text, params)),
  };
}

/**
 * The unit of work `unit` with a span for each of its statements (`trace` makes them, under the parent
 * its caller chose: the request's or the webhook attempt's). The parent is handed down explicitly, not
 * read from an async context: on Node 20 that context (AsyncLocalStorage) costs a hook on every promise
 * of the process (docs/adr/0022-tracing-start.md). A transaction opened from it is traced the same way.
 */
export function tracedUnitOfWork(unit: UnitOfWork, trace: StatementTracer): UnitOfWork {
  const traced: UnitOfWork = {
    prisma: tracedPrisma(unit.prisma, trace),
    sql: tracedSql(unit.sql, trace),
    inTransaction: unit.inTransaction,
    transaction: (fn) =>
      unit.inTransaction ? fn(traced) : unit.transaction((tx) => fn(tracedUnitOfWork(tx, trace))),
    afterCommit: (effect) => unit.afterCommit(effect),
  };
  return traced;
}
