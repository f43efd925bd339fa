import { isCatalogued } from "@cred/contracts/webhook-event-catalogue";
import type { Database } from "@cred/db";
import { newId } from "../shared/ids";
import { subscribesTo } from "../webhooks";

interface Candidate {
  id: string;
  tenantId: string;
  environment: string;
  type: string;
  subscriptionId: string | null;
  events: string[] | null;
}

/**
 * Fans undispatched outbox events out to deliveries: one per active subscription of the event's
 * tenant and environment that subscribes to its type and existed when it occurred. Events outside the
 * catalogue stay internal (no delivery). Returns the number of events handled; call again while it
 * equals `batchSize`.
 *
 * Two statements, no interactive transaction (which on the embedded database would hold its only
 * connection): a read of the oldest undispatched events with their candidate subscriptions, then ONE
 * statement that marks those events dispatched (with how many deliveries they get, which spares the
 * sweeper from looking at events that have deliveries: purge-expired.ts) and creates the deliveries of
 * exactly the events it marked. Dispatchers running at once (several processes on PostgreSQL) may read the same events; each
 * event is marked by one of them only, and the unique (subscription, event) pair makes a repeat harmless.
 */
export async function dispatchOutboxEvents(
  deps: { database: Database },
  options: { batchSize?: number; now?: Date } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 100;
  const sql = deps.database.root.sql;
  const { rows } = await sql.query<Candidate>(
    `WITH batch AS (
       SELECT "id", "tenantId", "environment", "type", "occurredAt" FROM "OutboxEvent"
        WHERE "dispatchedAt" IS NULL ORDER BY "occurredAt", "id" LIMIT $1)
     SELECT b."id", b."tenantId", b."environment", b."type", s."id" AS "subscriptionId", s."events"
       FROM batch b
       LEFT JOIN "WebhookSubscription" s
         ON s."tenantId" = b."tenantId" AND s."environment" = b."environment" AND s."status" = 'active'
        AND s."deletedAt" IS NULL AND s."createdAt" <= b."occurredAt"
      ORDER BY b."occurredAt", b."id", s."id"`,
    [batchSize],
  );
  if (rows.length === 0) return 0;
  const now = options.now ?? new Date();
  const deliveries = rows
    .filter((r) => r.subscriptionId && isCatalogued(r.type) && subscribesTo(r.events ?? [], r.type))
    .map((r) => ({
      id: newId("whd"),
      tenantId: r.tenantId,
      environment: r.environment,
      subscriptionId: r.subscriptionId,
      eventId: r.id,
      eventType: r.type,
      at: now.toISOString(),
    }));
  const fannedOut = new Map(rows.map((r) => [r.id, 0]));
  for (const d of deliveries) fannedOut.set(d.eventId, (fannedOut.get(d.eventId) ?? 0) + 1);
  const events = [...fannedOut].map(([id, deliveries]) => ({ id, deliveries }));
  await sql.query(
    `WITH marked AS (
       UPDATE "OutboxEvent" o SET "dispatchedAt" = $1::timestamp(3), "deliveriesCreated" = e."deliveries"
         FROM jsonb_to_recordset($2::jsonb) AS e("id" text, "deliveries" int)
        WHERE o."id" = e."id" AND o."dispatchedAt" IS NULL
       RETURNING o."id"),
     created AS (
       INSERT INTO "WebhookDelivery" ("id", "tenantId", "environment", "subscriptionId", "eventId", "eventType",
         "status", "nextAttemptAt", "createdAt", "updatedAt")
       SELECT d."id", d."tenantId", d."environment", d."subscriptionId", d."eventId", d."eventType",
              'pending', d."at", d."at", d."at"
         FROM jsonb_to_recordset($3::jsonb) AS d("id" text, "tenantId" text, "environment" text,
              "subscriptionId" text, "eventId" text, "eventType" text, "at" timestamp(3))
        WHERE d."eventId" IN (SELECT "id" FROM marked)
       ON CONFLICT DO NOTHING
       RETURNING 1)
     SELECT (SELECT count(*) FROM marked)::int AS "marked", (SELECT count(*) FROM created)::int AS "created"`,
    [now, JSON.stringify(events), JSON.stringify(deliveries)],
  );
  return events.length;
}
