-- AlterTable
ALTER TABLE "OutboxEvent" ADD COLUMN     "deliveriesCreated" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "OutboxEvent_deliveriesCreated_dispatchedAt_idx" ON "OutboxEvent"("deliveriesCreated", "dispatchedAt");

-- Backfill: events fanned out before this column existed count the deliveries that still refer to them.
UPDATE "OutboxEvent" o SET "deliveriesCreated" = d."count"
  FROM (SELECT "eventId", count(*)::int AS "count" FROM "WebhookDelivery" GROUP BY "eventId") d
 WHERE d."eventId" = o."id";
