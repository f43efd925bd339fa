import type { UnitOfWork } from "@cred/db";
import { claimsOfSpentTokensSql } from "../authorization-server";

/** Tables whose expired rows the sweeper deletes, by primary key. */
const PURGEABLE = {
  WalletNonce: "valueHash",
  AccessToken: "tokenHash",
  DpopProofUse: "key",
  AuthorizationRequest: "id",
  IdempotencyRecord: "id",
} as const;

/**
 * What goes in the same statement as a table's expired rows: the columns of theirs it reads, and a
 * statement on the deleted rows (the CTE `gone`; `$2` is now). A completed issuance transaction keeps
 * its sealed claims while its access token lives, for the wallet's further requests (OpenID4VCI §14.3),
 * and they go with the token.
 */
const ALONGSIDE: Partial<Record<keyof typeof PURGEABLE, { columns: string; statement: string }>> = {
  AccessToken: {
    columns: `, "transactionId", "tokenHash"`,
    statement: claimsOfSpentTokensSql("gone", "$2::timestamp(3)"),
  },
};

/**
 * Deletes a table's rows whose `expiresAt` is past, `chunk` rows per statement, oldest first. At full
 * load a minute leaves ~40 000 spent nonces and as many access tokens; one DELETE of them held the
 * embedded database (a single connection) for ~120 ms, so every request waited. In chunks, requests
 * queued meanwhile run between them. Each chunk starts where the last one ended (`expiresAt` at least
 * the last deleted one's): rows deleted by earlier chunks stay in the index until a VACUUM, and a scan
 * from the start walked them all again, so a sweep cost grew with the square of its rows (chunks of
 * 1 000 took 12–36 ms each, late in a 5-minute run). Expired access tokens take the sealed claims of
 * their completed transactions with them (`ALONGSIDE`). Returns the number of rows deleted.
 */
async function purgeExpired(
  db: UnitOfWork,
  table: keyof typeof PURGEABLE,
  now: Date,
  chunk = 1_000,
): Promise<number> {
  const key = PURGEABLE[table];
  const alongside = ALONGSIDE[table];
  let deleted = 0;
  let from = new Date(0);
  for (;;) {
    const { rows } = await db.sql.query<{ deleted: number; last: Date | null }>(
      `WITH gone AS (
         DELETE FROM "${table}" WHERE "${key}" IN (
           SELECT "${key}" FROM "${table}"
            WHERE "expiresAt" >= $1::timestamp(3) AND "expiresAt" < $2::timestamp(3)
            ORDER BY "expiresAt" LIMIT $3)
         RETURNING "expiresAt"${alongside?.columns ?? ""})${
           alongside
             ? `,
       alongside AS (${alongside.statement})`
             : ""
         }
       SELECT count(*)::int AS "deleted", max("expiresAt") AS "last" FROM gone`,
      [from, now, chunk],
    );
    const { deleted: count, last } = rows[0] ?? { deleted: 0, last: null };
    deleted += count;
    if (count < chunk || !last) return deleted;
    from = last;
  }
}

/**
 * Deletes outbox events dispatched before `before` that no subscription received, `chunk` rows per
 * statement. Without this the table grows by every event of every flow, forever. Only events fanned out
 * to nobody (`deliveriesCreated` = 0, from the dispatcher) are candidates, read from their index, so the
 * events kept for their deliveries are never scanned again; the NOT EXISTS is a safety net. An event
 * with deliveries goes with its last delivery (`purgeFinishedDeliveries`).
 */
async function purgeUndeliveredEvents(db: UnitOfWork, before: Date, chunk = 1_000): Promise<number> {
  const { rows } = await deleteInChunks(
    db,
    `DELETE FROM "OutboxEvent" WHERE "id" = ANY(ARRAY(
       SELECT o."id" FROM "OutboxEvent" o
        WHERE o."deliveriesCreated" = 0 AND o."dispatchedAt" < $1::timestamp(3)
          AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" d WHERE d."eventId" = o."id")
        LIMIT $2))
     RETURNING 1`,
    before,
    chunk,
  );
  return rows;
}

/** Delivery statuses after which nothing more happens unless someone asks for a redelivery. */
const FINISHED_DELIVERY_STATUSES = ["succeeded", "failed"] as const;

/**
 * Deletes webhook deliveries in a final state (`succeeded`, `failed`) whose last change (`updatedAt`:
 * the last attempt, the close without one, or a redelivery request) is before `before`, with their
 * attempts, `chunk` deliveries per statement; returns how many deliveries and events it deleted. Pending
 * deliveries (an attempt due or a retry scheduled) are never deleted: the rows are locked with their
 * status re-checked (`FOR UPDATE`), so one that a redelivery made pending meanwhile is passed over,
 * and one a worker or a redelivery holds is skipped until the next sweep. An event goes in the same
 * statement as its last delivery (the statement still sees the deliveries it deletes, hence the
 * `<> ALL(gone)`).
 *
 * One statement per status, oldest first, so the chunk is read from the (status, updatedAt) index; the
 * rows are then found by primary key (`= ANY(ARRAY(…))`), since with `IN (…)` the planner hashed the
 * chunk and scanned the whole table: ~12 ms per 1 000 deliveries instead of ~60 (embedded database,
 * 100 000 recent deliveries beside them).
 */
async function purgeFinishedDeliveries(
  db: UnitOfWork,
  before: Date,
  chunk = 1_000,
): Promise<{ deliveries: number; events: number }> {
  const total = { deliveries: 0, events: 0 };
  for (const status of FINISHED_DELIVERY_STATUSES) {
    const purged = await deleteInChunks(
      db,
      `WITH gone AS (
         DELETE FROM "WebhookDelivery" WHERE "id" = ANY(ARRAY(
           SELECT "id" FROM "WebhookDelivery"
            WHERE "status" = '${status}' AND "updatedAt" < $1::timestamp(3)
            ORDER BY "updatedAt" LIMIT $2
            FOR UPDATE SKIP LOCKED))
         RETURNING "id", "eventId"),
       attempts AS (DELETE FROM "WebhookAttempt" WHERE "deliveryId" = ANY(ARRAY(SELECT "id" FROM gone))),
       events AS (
         DELETE FROM "OutboxEvent" e WHERE e."id" = ANY(ARRAY(SELECT DISTINCT "eventId" FROM gone))
            AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" d
                             WHERE d."eventId" = e."id" AND d."id" <> ALL(ARRAY(SELECT "id" FROM gone)))
         RETURNING 1)
       SELECT (SELECT count(*) FROM events)::int AS "cascaded" FROM gone`,
      before,
      chunk,
    );
    total.deliveries += purged.rows;
    total.events += purged.cascaded;
  }
  return total;
}

/**
 * Runs `statement` ($1 = `cutoff`, $2 = `chunk`; one row returned per row deleted) until it deletes
 * fewer than `chunk` rows. Counted by rows returned, not by the command tag: PGlite reports no affected
 * rows for a statement whose outer command is a SELECT (a DELETE in a WITH clause). A statement that
 * also deletes dependent rows reports how many in a `cascaded` column (the same on every row).
 */
async function deleteInChunks(db: UnitOfWork, statement: string, cutoff: Date, chunk: number) {
  const total = { rows: 0, cascaded: 0 };
  for (;;) {
    const { rows } = await db.sql.query<{ cascaded?: number }>(statement, [cutoff, chunk]);
    total.rows += rows.length;
    total.cascaded += rows[0]?.cascaded ?? 0;
    if (rows.length < chunk) return total;
  }
}

/**
 * The sweeper's deletes (events/sweep-expired.ts): chunked single statements at the root unit of work,
 * across tenants (housekeeping by expiry, no tenant scope).
 */
export const purgeRepository = {
  expired: purgeExpired,
  undeliveredEvents: purgeUndeliveredEvents,
  finishedDeliveries: purgeFinishedDeliveries,
};
