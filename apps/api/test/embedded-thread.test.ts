import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type EmbeddedThread, openDatabase, startEmbeddedThread } from "@cred/db";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEmbedded } from "./skip-reasons";

// The embedded database runs in a thread of its own and serves pg connections over MessagePorts, all on
// its ONE PostgreSQL session (packages/db/src/embedded-thread). These are the rules that make that safe.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeOnEmbedded("embedded database thread", () => {
  let thread: EmbeddedThread;
  const clients: pg.Client[] = [];
  const client = async () => {
    const c = new pg.Client({ stream: () => thread.socket() });
    c.on("error", () => {});
    await c.connect();
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    thread = startEmbeddedThread({ startParams: [] });
    await thread.ready;
    await (await client()).query("CREATE TABLE t (v int)");
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => {})));
    await thread.close();
  });

  it("keeps a transaction to its connection: another connection's statement waits for it, never joins it", async () => {
    const a = await client();
    const b = await client();
    await a.query("BEGIN");
    await a.query("INSERT INTO t VALUES (1)");
    let bDoneAt = 0;
    const bInsert = b.query("INSERT INTO t VALUES (2)").then(() => {
      bDoneAt = performance.now();
    });
    await sleep(50);
    expect(bDoneAt).toBe(0); // still waiting: the session is inside a's transaction
    expect((await a.query("SELECT v FROM t ORDER BY v")).rows).toEqual([{ v: 1 }]);
    const rolledBackAt = performance.now();
    await a.query("ROLLBACK");
    await bInsert;
    expect(bDoneAt).toBeGreaterThan(rolledBackAt);
    // b's row was not part of a's transaction, so a's rollback did not take it.
    expect((await b.query("SELECT v FROM t ORDER BY v")).rows).toEqual([{ v: 2 }]);
    await b.query("DELETE FROM t");
  });

  it("lets every connection use a named prepared statement the session already holds", async () => {
    const [a, b, c, d] = [await client(), await client(), await client(), await client()];
    const named = (conn: pg.Client, n: number) =>
      conn.query({ name: "plus_one", text: "SELECT $1::int + 1 AS x", values: [n] });
    expect((await named(a, 1)).rows).toEqual([{ x: 2 }]);
    // b and c have not parsed it themselves, so their pg clients send the Parse again.
    const [fromB, fromC] = await Promise.all([named(b, 10), named(c, 20)]);
    expect([fromB.rows, fromC.rows]).toEqual([[{ x: 11 }], [{ x: 21 }]]);
    // The same name for a different statement is refused, as PostgreSQL does.
    const clash = await d.query({ name: "plus_one", text: "SELECT 2 AS y" }).catch((e: Error) => e);
    expect(String(clash)).toMatch(/already exists/);
    expect((await d.query("SELECT 1 AS ok")).rows).toEqual([{ ok: 1 }]);
  });

  it("rolls back the transaction of a connection that goes away, and the others carry on", async () => {
    const a = await client();
    const b = await client();
    await a.query("BEGIN");
    await a.query("INSERT INTO t VALUES (3)");
    const waiting = b.query("SELECT count(*)::int AS n FROM t");
    (a as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    expect((await waiting).rows).toEqual([{ n: 0 }]);
    await b.query("INSERT INTO t VALUES (4)");
    expect((await b.query("SELECT v FROM t")).rows).toEqual([{ v: 4 }]);
  });

  it("fails, rather than hangs, when the database cannot open or is closed", async () => {
    const notADirectory = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "cred-thread-")), "file");
    fs.writeFileSync(notADirectory, "x");
    const broken = startEmbeddedThread({ dataDir: notADirectory, startParams: [] });
    await expect(broken.ready).rejects.toThrow(/embedded database/);
    const refused = new pg.Client({ stream: () => broken.socket() });
    refused.on("error", () => {});
    await expect(refused.connect()).rejects.toThrow();
    await broken.close();

    const other = startEmbeddedThread({ startParams: [] });
    await other.ready;
    await other.close();
    const late = new pg.Client({ stream: () => other.socket() });
    late.on("error", () => {});
    await expect(late.connect()).rejects.toThrow(/closed/);
  });

  it("takes the buffer pool size it is given (16 MB unless told)", async () => {
    const setting = async (sharedBuffersMb?: number) => {
      const db = openDatabase({ dataDir: ":memory:", sharedBuffersMb });
      try {
        return (await db.root.sql.query<{ shared_buffers: string }>("SHOW shared_buffers")).rows[0]!
          .shared_buffers;
      } finally {
        await db.close();
      }
    };
    expect(await setting()).toBe("16MB");
    expect(await setting(24)).toBe("24MB");
  });
});
