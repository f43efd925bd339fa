import { onOutboxWrite } from "@cred/core";
import type pg from "pg";
import type { WorkerLogger } from "./worker-logger";

/**
 * On PostgreSQL, webhook workers in other processes (`pnpm worker`, or other API processes) hear of
 * new outbox events through LISTEN/NOTIFY instead of only at their next poll. The API process
 * announces that it is writing events at most once per `NOTIFY_EVERY_MS` (the announcement may arrive
 * before the event's commit: a worker answers by polling quickly for a second, webhook-worker.ts).
 */
export const OUTBOX_CHANNEL = "cred_outbox";
const NOTIFY_EVERY_MS = 50;

/** Announces this process's outbox writes on the channel; returns a function that stops it. */
export function announceOutboxWrites(pool: pg.Pool, logger: WorkerLogger): () => void {
  let pending: NodeJS.Timeout | undefined;
  let failing = false;
  const stopListening = onOutboxWrite(() => {
    pending ??= setTimeout(() => {
      pending = undefined;
      pool.query(`NOTIFY ${OUTBOX_CHANNEL}`).then(
        () => {
          failing = false;
        },
        (error) => {
          if (!failing) logger.warn({ err: error }, "outbox NOTIFY failed; workers fall back to polling");
          failing = true;
        },
      );
    }, NOTIFY_EVERY_MS);
  });
  return () => {
    stopListening();
    clearTimeout(pending);
  };
}

/**
 * Calls `onNotify` whenever another process announces outbox writes, on a connection of its own
 * (reopened after a second when it drops). Returns a function that stops listening.
 */
export function listenForOutboxWrites(pool: pg.Pool, onNotify: () => void, logger: WorkerLogger): () => void {
  let stopped = false;
  let client: pg.PoolClient | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    let c: pg.PoolClient | undefined;
    try {
      c = await pool.connect();
      const connection = c;
      connection.on("notification", (message) => {
        if (message.channel === OUTBOX_CHANNEL) onNotify();
      });
      connection.on("error", (error) => {
        logger.warn({ err: error }, "outbox LISTEN connection lost; reconnecting");
        if (client !== connection) return;
        client = undefined;
        connection.release(error);
        if (!stopped) retry = setTimeout(connect, 1_000);
      });
      await connection.query(`LISTEN ${OUTBOX_CHANNEL}`);
      if (stopped) {
        connection.release(true); // a fresh connection next time: this one still listens
        return;
      }
      client = connection;
    } catch (error) {
      c?.release(error as Error);
      logger.warn({ err: error }, "outbox LISTEN failed; polling only, trying again in a second");
      if (!stopped) retry = setTimeout(connect, 1_000);
    }
  };
  void connect();
  return () => {
    stopped = true;
    clearTimeout(retry);
    const c = client;
    client = undefined;
    if (c)
      c.query(`UNLISTEN ${OUTBOX_CHANNEL}`).then(
        () => c.release(),
        (error) => c.release(error),
      );
  };
}
