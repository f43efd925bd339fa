import type { FastSql } from "@cred/db";

/** Tables whose expired rows the sweeper deletes, by primary key. */
const PURGEABLE = {
  WalletNonce: "valueHash",
  AccessToken: "tokenHash",
  IdempotencyRecord: "id",
} as const;

/**
 * Deletes a table's rows whose `expiresAt` is past, `chunk` rows per statement. At full load a minute
 * leaves ~15 000 spent nonces and as many access tokens; one DELETE of them held the embedded database
 * (a single connection) for ~120 ms, so every request waited. In chunks of 1 000 (~8 ms each), requests
 * queued meanwhile run between them. Returns the number of rows deleted.
 */
export function purgeExpired(
  sql: FastSql,
  table: keyof typeof PURGEABLE,
  now: Date,
  chunk = 1_000,
): Promise<number> {
  const key = PURGEABLE[table];
  return deleteInChunks(
    sql,
    `DELETE FROM "${table}" WHERE "${key}" IN (
       SELECT "${key}" FROM "${table}" WHERE "expiresAt" < $1::timestamp(3) LIMIT $2)
     RETURNING 1`,
    now,
    chunk,
  );
}

/**
 * Deletes outbox events dispatched before `before` that no subscription received (no delivery refers
 * to them), `chunk` rows per statement. Events with deliveries stay: retries and manual redeliveries
 * read their payload; once `purgeFinishedDeliveries` has deleted an event's last delivery, this
 * deletes the event. Without this the table grows by every event of every flow, forever.
 */
export function purgeUndeliveredEvents(sql: FastSql, before: Date, chunk = 1_000): Promise<number> {
  return deleteInChunks(
    sql,
    `DELETE FROM "OutboxEvent" WHERE "id" IN (
       SELECT o."id" FROM "OutboxEvent" o
        WHERE o."dispatchedAt" < $1::timestamp(3)
          AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" d WHERE d."eventId" = o."id")
        LIMIT $2)
     RETURNING 1`,
    before,
    chunk,
  );
}

/** Delivery statuses after which nothing more happens unless someone asks for a redelivery. */
const FINISHED_DELIVERY_STATUSES = ["succeeded", "failed"] as const;

/**
 * Deletes webhook deliveries in a final state (`succeeded`, `failed`) whose last change (`updatedAt`:
 * the last attempt, the close without one, or a redelivery request) is before `before`, with their
 * attempts, `chunk` deliveries per statement; returns the number of deliveries deleted. Pending
 * deliveries (an attempt due or a retry scheduled) are never deleted: the rows are locked with their
 * status re-checked (`FOR UPDATE`), so one that a redelivery made pending meanwhile is passed over,
 * and one a worker or a redelivery holds is skipped until the next sweep. Their events are left to
 * `purgeUndeliveredEvents`, which deletes them once no delivery refers to them.
 *
 * One statement per status, oldest first, so the chunk is read from the (status, updatedAt) index; the
 * rows are then found by primary key (`= ANY(ARRAY(…))`), since with `IN (…)` the planner hashed the
 * chunk and scanned the whole table: ~12 ms per 1 000 deliveries instead of ~60 (embedded database,
 * 100 000 recent deliveries beside them).
 */
export async function purgeFinishedDeliveries(sql: FastSql, before: Date, chunk = 1_000): Promise<number> {
  let total = 0;
  for (const status of FINISHED_DELIVERY_STATUSES) {
    total += await deleteInChunks(
      sql,
      `WITH gone AS (
         DELETE FROM "WebhookDelivery" WHERE "id" = ANY(ARRAY(
           SELECT "id" FROM "WebhookDelivery"
            WHERE "status" = '${status}' AND "updatedAt" < $1::timestamp(3)
            ORDER BY "updatedAt" LIMIT $2
            FOR UPDATE SKIP LOCKED))
         RETURNING "id"),
       attempts AS (DELETE FROM "WebhookAttempt" WHERE "deliveryId" = ANY(ARRAY(SELECT "id" FROM gone)))
       SELECT 1 FROM gone`,
      before,
      chunk,
    );
  }
  return total;
}

/**
 * Runs `statement` ($1 = `cutoff`, $2 = `chunk`; one row returned per row deleted) until it deletes
 * fewer than `chunk` rows; the total. Counted by rows returned, not by the command tag: PGlite reports
 * no affected rows for a statement whose outer command is a SELECT (a DELETE in a WITH clause).
 */
async function deleteInChunks(sql: FastSql, statement: string, cutoff: Date, chunk: number) {
  let total = 0;
  for (;;) {
    const { rows } = await sql.query(statement, [cutoff, chunk]);
    total += rows.length;
    if (rows.length < chunk) return total;
  }
}
