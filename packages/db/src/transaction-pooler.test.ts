import pg from "pg";
import { describe, expect, it } from "vitest";
import { poolerMode, unnamedStatementsClientClass } from "./transaction-pooler";

describe("transaction pooler mode", () => {
  it("is asked for by pgbouncer=true, which pg is not given", () => {
    expect(poolerMode("postgres://u:p@pooler:6432/db?pgbouncer=true&sslmode=disable")).toEqual({
      transactionPooler: true,
      connectionString: "postgres://u:p@pooler:6432/db?sslmode=disable",
    });
    expect(poolerMode("postgres://u:p@db:5432/db")).toEqual({
      transactionPooler: false,
      connectionString: "postgres://u:p@db:5432/db",
    });
    expect(poolerMode("postgres://u:p@db:5432/db?pgbouncer=false").transactionPooler).toBe(false);
  });

  it("sends named statements unnamed, leaving everything else as it was", async () => {
    const sent: unknown[] = [];
    class Recording extends pg.Client {}
    (Recording.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = (
      ...args: unknown[]
    ) => {
      sent.push(args[0]);
      return Promise.resolve({ rows: [] });
    };
    const Client = unnamedStatementsClientClass(Recording);
    const client = new Client();
    await client.query({ name: "cred_fast_1", text: "SELECT $1", values: [1] });
    await client.query("SELECT 1");
    expect(sent).toEqual([{ text: "SELECT $1", values: [1] }, "SELECT 1"]);
  });
});
