import { describe, expect, it } from "vitest";
import type { FastSql } from "./fast-sql";
import {
  compactSql,
  type StatementTracer,
  sqlOperation,
  type TracedStatement,
  tracedUnitOfWork,
} from "./traced-unit-of-work";
import type { Db, UnitOfWork } from "./unit-of-work";

/** What the statements reached: the calls as the database saw them. */
function fakeUnit(calls: unknown[][], inTransaction = false): UnitOfWork {
  const prisma = {
    issuer: {
      findUnique: async (args: unknown) => {
        calls.push(["issuer.findUnique", args]);
        return { id: "iss_1" };
      },
    },
    $queryRaw: async (strings: TemplateStringsArray, ...values: unknown[]) => {
      calls.push(["$queryRaw", strings.join("?"), ...values]);
      return [{ locked: 1 }];
    },
    $executeRawUnsafe: async (text: string, ...values: unknown[]) => {
      calls.push(["$executeRawUnsafe", text, ...values]);
      return 1;
    },
  } as unknown as Db;
  const sql: FastSql = {
    async query<T>(text: string, params: unknown[] = []) {
      calls.push(["sql", text, ...params]);
      return { rows: [] as T[], affected: 0 };
    },
  };
  const unit: UnitOfWork = {
    prisma,
    sql,
    inTransaction,
    transaction: (fn) => (inTransaction ? fn(unit) : fn(fakeUnit(calls, true))),
    afterCommit: (effect) => effect(),
  };
  return unit;
}

function recorder() {
  const traced: (TracedStatement & { failed?: boolean })[] = [];
  const trace: StatementTracer = async (statement, run) => {
    const entry: TracedStatement & { failed?: boolean } = { ...statement };
    traced.push(entry);
    try {
      return await run();
    } catch (error) {
      entry.failed = true;
      throw error;
    }
  };
  return { traced, trace };
}

describe("a unit of work with a span per statement", () => {
  it("fast-path SQL: the text with its placeholders and the operation, never the values", async () => {
    const calls: unknown[][] = [];
    const { traced, trace } = recorder();
    const unit = tracedUnitOfWork(fakeUnit(calls), trace);
    await unit.sql.query('SELECT "id" FROM "Issuer" WHERE "id" = $1', ["s3cret-id"]);
    expect(traced).toEqual([{ text: 'SELECT "id" FROM "Issuer" WHERE "id" = $1', operation: "SELECT" }]);
    expect(JSON.stringify(traced)).not.toMatch(/s3cret/);
    expect(calls).toEqual([["sql", 'SELECT "id" FROM "Issuer" WHERE "id" = $1', "s3cret-id"]]);
  });

  it("Prisma model calls by model and operation; raw statements by their text ($1 where a value goes)", async () => {
    const calls: unknown[][] = [];
    const { traced, trace } = recorder();
    const unit = tracedUnitOfWork(fakeUnit(calls), trace);
    expect(await unit.prisma.issuer.findUnique({ where: { id: "iss_1" } })).toEqual({ id: "iss_1" });
    const tenantId = "ten_s3cret";
    await unit.prisma.$queryRaw`SELECT 1 AS "locked" FROM "Tenant" WHERE "id" = ${tenantId} FOR UPDATE`;
    await unit.prisma.$executeRawUnsafe('DELETE FROM "Nonce" WHERE "expiresAt" < $1', new Date(0));
    expect(traced).toEqual([
      { operation: "findUnique", collection: "issuer" },
      { text: 'SELECT 1 AS "locked" FROM "Tenant" WHERE "id" = $1 FOR UPDATE', operation: "SELECT" },
      { text: 'DELETE FROM "Nonce" WHERE "expiresAt" < $1', operation: "DELETE" },
    ]);
    expect(JSON.stringify(traced)).not.toMatch(/s3cret/);
    // The statements themselves reached the database unchanged, with their values.
    expect(calls[1]).toEqual([
      "$queryRaw",
      'SELECT 1 AS "locked" FROM "Tenant" WHERE "id" = ? FOR UPDATE',
      tenantId,
    ]);
  });

  it("statements inside a transaction opened from it are traced too; a failing one is reported failed", async () => {
    const calls: unknown[][] = [];
    const { traced, trace } = recorder();
    const unit = tracedUnitOfWork(fakeUnit(calls), trace);
    await unit.transaction(async (tx) => {
      expect(tx.inTransaction).toBe(true);
      await tx.sql.query('UPDATE "Nonce" SET "used" = true WHERE "id" = $1', ["n"]);
      // Joining the open transaction keeps tracing.
      await tx.transaction((inner) => inner.prisma.issuer.findUnique({ where: { id: "iss_1" } }));
    });
    expect(traced.map((t) => t.operation)).toEqual(["UPDATE", "findUnique"]);
    const failing = tracedUnitOfWork(
      { ...fakeUnit(calls), sql: { query: () => Promise.reject(new Error("boom")) } },
      trace,
    );
    await expect(failing.sql.query("INSERT INTO x VALUES ($1)", [1])).rejects.toThrow("boom");
    expect(traced.at(-1)).toEqual({ text: "INSERT INTO x VALUES ($1)", operation: "INSERT", failed: true });
  });

  it("a multi-line statement is recorded on one line, its indentation gone", async () => {
    const calls: unknown[][] = [];
    const { traced, trace } = recorder();
    const unit = tracedUnitOfWork(fakeUnit(calls), trace);
    const text = `
      WITH spent AS (
        DELETE FROM "Nonce"
         WHERE "id" = $1 AND "note" = 'two  spaces'
        RETURNING "id")\r
      SELECT * FROM spent
    `;
    await unit.sql.query(text, ["n"]);
    await unit.sql.query(text, ["m"]);
    expect(traced[0]).toEqual({
      text: `WITH spent AS ( DELETE FROM "Nonce" WHERE "id" = $1 AND "note" = 'two  spaces' RETURNING "id") SELECT * FROM spent`,
      operation: "WITH",
    });
    // Worked out once per text: both statements record the same object.
    expect(traced[1]).toEqual(traced[0]);
    // The database got the statement as written.
    expect(calls.map((call) => call[1])).toEqual([text, text]);
    expect(compactSql("SELECT 1")).toBe("SELECT 1");
  });

  it("the operation is the statement's first word", () => {
    expect(sqlOperation("  with x as (select 1) select * from x")).toBe("WITH");
    expect(sqlOperation("-- comment")).toBe("SQL");
  });
});
