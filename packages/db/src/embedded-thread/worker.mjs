// The embedded database's own thread: it owns the PGlite instance and speaks the PostgreSQL wire protocol
// to the main thread's pg clients, one MessagePort per client connection (see ./embedded-thread.ts).
// Plain JavaScript on purpose: a worker cannot rely on the TypeScript loader of whoever started it
// (tsx for the server, vite-node for tests).
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { statementStats } from "./statement-stats.mjs";

/** @type {{ dataDir?: string, startParams: string[] }} */
const { dataDir, startParams } = workerData;

const PROTOCOL_3 = 196608;
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
/** A unit of work for the session ends with one of these: Sync, simple Query, Flush. */
const UNIT_END = new Set([0x53 /* S */, 0x51 /* Q */, 0x48 /* H */]);
const TERMINATE = 0x58; /* X */

const options = { relaxedDurability: true, startParams: [...PGlite.defaultStartParams, ...startParams] };
const pglite = dataDir ? new PGlite(dataDir, options) : new PGlite(options);
/** Per-statement timings for `pnpm bench --db-statements`; null (and no cost) otherwise. */
const stats = statementStats(process.env.EMBEDDED_STATEMENT_STATS);

/**
 * PGlite is ONE PostgreSQL session; every client connection shares it. The session belongs to one
 * connection from its first message until a ReadyForQuery reports it idle ('I'): an open transaction
 * (status 'T' or 'E') or a half-sent extended-query sequence keeps it, so no other connection's
 * statement can run inside it. Units of the other connections wait in arrival order.
 */
/** @typedef {{ port: import("node:worker_threads").MessagePort, inbox: Buffer, started: boolean, pending: Buffer[], open: boolean, ending?: boolean }} Connection */
/** @type {Connection | null} */
let owner = null;
/** @type {Set<Connection>} */
const connections = new Set();
/** @type {{ conn: Connection, unit: Buffer | null }[]} unit null = terminate */
const queue = [];
let pumping = false;
let closing = false;

const message = (type, body) => {
  const out = Buffer.alloc(5 + body.length);
  out[0] = type.charCodeAt(0);
  out.writeInt32BE(4 + body.length, 1);
  body.copy(out, 5);
  return out;
};
const cstring = (s) => Buffer.from(`${s}\0`, "utf8");
const int32 = (n) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

/** What a PostgreSQL server says after a successful startup; the values come from the session itself. */
let greeting = Buffer.alloc(0);

async function prepareGreeting() {
  const settings = [
    "server_version",
    "server_encoding",
    "client_encoding",
    "DateStyle",
    "IntervalStyle",
    "TimeZone",
  ];
  const { rows } = await pglite.query(`SELECT name, setting FROM pg_settings WHERE name = ANY($1)`, [
    settings,
  ]);
  const params = [
    ...rows.map((r) => [r.name, r.setting]),
    ["integer_datetimes", "on"],
    ["standard_conforming_strings", "on"],
  ];
  greeting = Buffer.concat([
    message("R", int32(0)),
    ...params.map(([k, v]) => message("S", Buffer.concat([cstring(k), cstring(v)]))),
    message("K", Buffer.concat([int32(process.pid), int32(0)])),
    message("Z", Buffer.from("I")),
  ]);
}

/**
 * Named prepared statements live in the session, which every connection shares, but each pg client keeps
 * its own record of what it has parsed. A Parse of a name the session already holds with the same text is
 * therefore answered here (ParseComplete) instead of failing with "already exists".
 */
const preparedInSession = new Map();
const PARSE_COMPLETE = message("1", Buffer.alloc(0));

/**
 * Hands protocol bytes to the backend and returns its raw reply. Through `execProtocolRawStream` with a
 * callback of our own: PGlite's plain `execProtocolRawSync` also parses every reply into a result list
 * that only its `execProtocol` ever empties, so used alone it leaks (and parses for nothing). The
 * callback's bytes are a view of WebAssembly memory, hence the copy. Runs synchronously; the promise
 * only settles the call.
 */
async function run(bytes) {
  const parts = [];
  await pglite.execProtocolRawStream(bytes, {
    syncToFs: false,
    onRawData: (chunk) => parts.push(Buffer.from(chunk)),
  });
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

/** Runs one unit; a leading Parse of an already prepared statement is skipped. */
async function execute(unit) {
  if (unit[0] !== 0x50 /* P */) return run(unit);
  const end = 1 + unit.readInt32BE(1);
  const nameEnd = unit.indexOf(0, 5);
  const name = unit.toString("utf8", 5, nameEnd);
  if (!name) return run(unit);
  const definition = unit.toString("latin1", nameEnd + 1, end);
  if (preparedInSession.get(name) === definition) {
    const rest = end < unit.length ? await run(unit.subarray(end)) : Buffer.alloc(0);
    return Buffer.concat([PARSE_COMPLETE, rest]);
  }
  const reply = await run(unit);
  if (reply[0] === 0x31 /* 1 */) preparedInSession.set(name, definition);
  return reply;
}

/** The status byte of the last ReadyForQuery in a backend reply, or null when there is none. */
function lastReadyStatus(reply) {
  let status = null;
  for (let at = 0; at + 5 <= reply.length; ) {
    const length = reply.readInt32BE(at + 1);
    if (reply[at] === 0x5a /* Z */) status = reply[at + 5];
    at += 1 + length;
  }
  return status;
}

function send(conn, bytes) {
  if (conn.open && bytes.length > 0) conn.port.postMessage(bytes);
}

/** A connection that leaves while it owns the session: finish its sequence and roll its transaction back. */
async function releaseSession(conn) {
  if (owner !== conn) return;
  owner = null;
  const synced = await run(message("S", Buffer.alloc(0)));
  if (lastReadyStatus(synced) !== 0x49 /* I */) await run(message("Q", cstring("ROLLBACK")));
}

/**
 * Ends a connection. Only the pump runs this (a terminate unit), so the session is never used by two
 * things at once; a connection that owns the session is released first.
 */
async function closeConnection(conn) {
  if (!conn.open) return;
  conn.open = false;
  connections.delete(conn);
  for (let i = queue.length - 1; i >= 0; i--) if (queue[i].conn === conn) queue.splice(i, 1);
  conn.port.close();
  await releaseSession(conn);
}

/** Ends a connection through the queue (its client left, or spoke something we do not serve). */
function endConnection(conn) {
  if (!conn.open || conn.ending) return;
  conn.ending = true;
  queue.push({ conn, unit: null });
  pump();
}

let idle = Promise.resolve();

/** Runs queued units one at a time: the owner's first while it holds the session, else in arrival order. */
function pump() {
  if (pumping) return;
  pumping = true;
  idle = (async () => {
    try {
      while (!closing) {
        const index = owner ? queue.findIndex((q) => q.conn === owner) : 0;
        if (index < 0 || queue.length === 0) break;
        const [{ conn, unit }] = queue.splice(index, 1);
        if (unit === null) {
          await closeConnection(conn);
          continue;
        }
        let reply;
        try {
          const started = stats && performance.now();
          reply = await execute(unit);
          if (stats) stats.record(unit, performance.now() - started);
        } catch (error) {
          // Not a PostgreSQL error (those come back as ErrorResponse): the session state is unknown, so
          // this connection ends and its client sees it terminated.
          console.error("embedded database: protocol execution failed", error);
          owner = conn;
          await closeConnection(conn);
          continue;
        }
        owner = lastReadyStatus(reply) === 0x49 /* I */ ? null : conn;
        send(conn, reply);
      }
    } finally {
      pumping = false;
    }
  })();
}

/** Startup packets have no type byte; everything after them is `type, int32 length, body`. */
function receive(conn, chunk) {
  conn.inbox = conn.inbox.length ? Buffer.concat([conn.inbox, chunk]) : chunk;
  let at = 0;
  while (conn.open) {
    if (!conn.started) {
      if (conn.inbox.length - at < 8) break;
      const length = conn.inbox.readInt32BE(at);
      if (conn.inbox.length - at < length) break;
      const code = conn.inbox.readInt32BE(at + 4);
      at += length;
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
        send(conn, Buffer.from("N"));
      } else if (code === PROTOCOL_3) {
        conn.started = true;
        send(conn, greeting);
      } else {
        endConnection(conn); // cancel requests and unknown protocol versions
        break;
      }
      continue;
    }
    if (conn.inbox.length - at < 5) break;
    const length = conn.inbox.readInt32BE(at + 1);
    if (conn.inbox.length - at < 1 + length) break;
    const type = conn.inbox[at];
    const frame = conn.inbox.subarray(at, at + 1 + length);
    at += 1 + length;
    if (type === TERMINATE) {
      endConnection(conn);
      break;
    }
    conn.pending.push(frame);
    if (UNIT_END.has(type)) {
      queue.push({ conn, unit: Buffer.concat(conn.pending) });
      conn.pending = [];
    }
  }
  conn.inbox = at >= conn.inbox.length ? Buffer.alloc(0) : Buffer.from(conn.inbox.subarray(at));
  pump();
}

/** @param {import("node:worker_threads").MessagePort} port */
function accept(port) {
  /** @type {Connection} */
  const conn = { port, inbox: Buffer.alloc(0), started: false, pending: [], open: true };
  connections.add(conn);
  port.on("message", (data) => receive(conn, Buffer.from(data.buffer, data.byteOffset, data.byteLength)));
  port.on("close", () => endConnection(conn));
}

parentPort.on("message", async (msg) => {
  if (msg.type === "connect") accept(msg.port);
  else if (msg.type === "close") {
    // Shutting down: what is queued is dropped and an open transaction is lost, as when a PostgreSQL
    // server stops; the unit running now completes first.
    closing = true;
    await idle;
    stats?.stop();
    for (const conn of connections) conn.port.close();
    await pglite.close();
    parentPort.postMessage({ type: "closed" });
  }
});

try {
  await pglite.waitReady;
  await prepareGreeting();
  parentPort.postMessage({ type: "ready" });
} catch (error) {
  // PGlite's file system errors are not Errors and carry only an errno (e.g. 54, ENOTDIR).
  const why = error?.message || (error?.errno ? `file system error (errno ${error.errno})` : String(error));
  parentPort.postMessage({ type: "failed", message: why });
}
