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
 * read their payload. Without this the table grows by every event of every flow, forever.
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

/** Runs `statement` ($1 = `cutoff`, $2 = `chunk`) until it deletes fewer than `chunk` rows; the total. */
async function deleteInChunks(sql: FastSql, statement: string, cutoff: Date, chunk: number) {
  let total = 0;
  for (;;) {
    const { affected } = await sql.query(statement, [cutoff, chunk]);
    total += affected;
    if (affected < chunk) return total;
  }
}
