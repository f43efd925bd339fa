import { Prisma, type UnitOfWork } from "@cred/db";

/** The events slice's statements: delivery claims and attempts (single driver statements: they run for every delivery), the sweeper the outbox fan-out. */
export const eventsRepository = {
  /** Deliveries waiting for an attempt (pending, due or not), across tenants: the metrics' queue depth. */
  async countPending(db: UnitOfWork): Promise<number> {
    const { rows } = await db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "WebhookDelivery" WHERE "status" = 'pending'`,
    );
    return rows[0]?.n ?? 0;
  },
  /**
   * Claims up to `take` due deliveries in one statement: rows another worker holds (row lock or
   * unexpired lease) are skipped, and the lease keeps them reserved after the statement commits. Each
   * comes with what its attempt needs of its subscription and event (either may be gone: null), read
   * by the same statement.
   */
  async claimDue(db: UnitOfWork, now: Date, leaseUntil: Date, take: number): Promise<ClaimedDelivery[]> {
    const { rows } = await db.sql.query<ClaimedRow>(
      `WITH claimed AS (
         UPDATE "WebhookDelivery" SET "lockedUntil" = $1::timestamp(3)
          WHERE "id" IN (
            SELECT "id" FROM "WebhookDelivery"
             WHERE "status" = 'pending'
               AND "nextAttemptAt" <= $2::timestamp(3)
               AND ("lockedUntil" IS NULL OR "lockedUntil" <= $2::timestamp(3))
             ORDER BY "nextAttemptAt", "id"
             LIMIT $3
             FOR UPDATE SKIP LOCKED)
          RETURNING "id", "subscriptionId", "eventId", "eventType", "attempts")
       SELECT c."id", c."subscriptionId", c."eventId", c."eventType", c."attempts",
              s."id" AS "liveSubscriptionId", s."url", s."status", s."deletedAt", s."secretCipher",
              s."previousSecrets",
              e."id" AS "liveEventId", e."occurredAt", e."payload"
         FROM claimed c
         LEFT JOIN "WebhookSubscription" s ON s."id" = c."subscriptionId"
         LEFT JOIN "OutboxEvent" e ON e."id" = c."eventId"`,
      [leaseUntil, now, take],
    );
    rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return rows.map((row) => ({
      id: row.id,
      subscriptionId: row.subscriptionId,
      eventId: row.eventId,
      eventType: row.eventType,
      attempts: row.attempts,
      subscription:
        row.liveSubscriptionId === null
          ? null
          : {
              id: row.liveSubscriptionId,
              url: row.url,
              status: row.status,
              deletedAt: row.deletedAt,
              secretCipher: row.secretCipher,
              previousSecrets: row.previousSecrets,
            },
      event:
        row.liveEventId === null
          ? null
          : { id: row.liveEventId, type: row.eventType, occurredAt: row.occurredAt, payload: row.payload },
    }));
  },
  /**
   * Records attempt `attemptNumber` and its outcome on the delivery in one statement, fenced on the
   * attempt count the worker claimed: false (nothing written) when another worker recorded that attempt
   * first. `disable` (410 Gone) also disables the subscription, in the same statement.
   */
  async recordAttempt(
    db: UnitOfWork,
    attempt: {
      id: string;
      deliveryId: string;
      attemptNumber: number;
      startedAt: Date;
      durationMs: number;
      responseStatus: number | null;
      error: string | null;
    },
    outcome: {
      status: "succeeded" | "pending" | "failed";
      nextAttemptAt: Date | null;
      recordedAt: Date;
      /**
       * Disables the subscription in the same statement: at once (410 Gone), or, with `noSuccessSince`,
       * only when it is older than that and none of its deliveries succeeded since (a delivery that just
       * failed for good at an endpoint that has failed everything for days).
       */
      disable?: { subscriptionId: string; reason: string; noSuccessSince?: Date };
    },
  ): Promise<boolean> {
    const { rows } = await db.sql.query<{ recorded: number }>(
      `WITH updated AS (
         UPDATE "WebhookDelivery"
            SET "status" = $3, "attempts" = $2::int, "lockedUntil" = NULL, "lastAttemptAt" = $4::timestamp(3),
                "lastResponseStatus" = $5::int, "lastError" = $6::text, "nextAttemptAt" = $7::timestamp(3),
                "updatedAt" = $8::timestamp(3)
          WHERE "id" = $1 AND "attempts" = $2::int - 1
         RETURNING "id"),
       attempt AS (
         INSERT INTO "WebhookAttempt" ("id", "deliveryId", "attemptNumber", "startedAt", "durationMs",
           "responseStatus", "error")
         SELECT $9, "id", $2::int, $4::timestamp(3), $10::int, $5::int, $6::text FROM updated),
       disabled AS (
         UPDATE "WebhookSubscription" SET "status" = 'disabled', "disabledReason" = $12::text,
                "updatedAt" = $8::timestamp(3)
          WHERE "id" = $11::text AND "status" = 'active' AND EXISTS (SELECT 1 FROM updated)
            AND ($13::timestamp(3) IS NULL OR ("createdAt" < $13::timestamp(3) AND NOT EXISTS (
                  SELECT 1 FROM "WebhookDelivery" d WHERE d."subscriptionId" = $11::text
                     AND d."status" = 'succeeded' AND d."updatedAt" >= $13::timestamp(3)))))
       SELECT count(*)::int AS "recorded" FROM updated`,
      [
        attempt.deliveryId,
        attempt.attemptNumber,
        outcome.status,
        attempt.startedAt,
        attempt.responseStatus,
        attempt.error,
        outcome.nextAttemptAt,
        outcome.recordedAt,
        attempt.id,
        attempt.durationMs,
        outcome.disable?.subscriptionId ?? null,
        outcome.disable?.reason ?? null,
        outcome.disable?.noSuccessSince ?? null,
      ],
    );
    return rows[0]?.recorded === 1;
  },
  /** Ends a delivery without an attempt (its subscription is gone or disabled). */
  async closeWithoutAttempt(db: UnitOfWork, id: string, attempts: number, lastError: string) {
    await db.prisma.webhookDelivery.updateMany({
      where: { id, attempts, status: "pending" },
      data: { status: "failed", nextAttemptAt: null, lockedUntil: null, lastError },
    });
  },

  // Outbox fan-out (dispatch-outbox-events.ts) -----------------------------------------------------

  /**
   * The oldest `batchSize` undispatched outbox events (all tenants), each with its candidate
   * subscriptions (active, not deleted, of its tenant and environment, existing when it occurred): one
   * row per pair, or one row with a null subscription.
   */
  async undispatchedWithCandidates(db: UnitOfWork, batchSize: number): Promise<OutboxCandidate[]> {
    const { rows } = await db.sql.query<OutboxCandidate>(
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
    return rows;
  },
  /**
   * Marks `events` dispatched (with how many deliveries each gets) and creates `deliveries` of exactly
   * the events this statement marked, in ONE statement.
   */
  async markDispatched(
    db: UnitOfWork,
    now: Date,
    events: { id: string; deliveries: number }[],
    deliveries: {
      id: string;
      tenantId: string;
      environment: string;
      subscriptionId: string | null;
      eventId: string;
      eventType: string;
      at: string;
    }[],
  ): Promise<void> {
    await db.sql.query(
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
  },

  // Sweeper ---------------------------------------------------------------------------------------

  expiredPendingIssuanceTransactions(db: UnitOfWork, now: Date, take: number) {
    return db.prisma.issuanceTransaction.findMany({
      where: { status: "pending", expiresAt: { lte: now }, expiryEventAt: null },
      orderBy: { expiresAt: "asc" },
      take,
    });
  },
  /** pending → expired exactly once (the conditional update on `expiryEventAt IS NULL` decides). */
  async expireIssuanceTransaction(tx: UnitOfWork, id: string, now: Date) {
    const { count } = await tx.prisma.issuanceTransaction.updateMany({
      where: { id, status: "pending", expiresAt: { lte: now }, expiryEventAt: null },
      data: {
        status: "expired",
        expiryEventAt: now,
        claimsCipher: null,
        offerCipher: null,
        preAuthorizedCodeHash: null,
        issuerStateHash: null,
        offerHandleHash: null,
        deferredIdHash: null,
        deferredHolderKeys: Prisma.DbNull,
      },
    });
    if (count === 1) await tx.prisma.accessToken.deleteMany({ where: { transactionId: id } });
    return count === 1;
  },
  expiredPendingVerificationSessions(db: UnitOfWork, now: Date, take: number) {
    return db.prisma.verificationSession.findMany({
      where: { status: "pending", expiresAt: { lte: now } },
      orderBy: { expiresAt: "asc" },
      take,
    });
  },
};

/** A delivery reserved for one attempt by this worker, with its subscription and event as claimed. */
export interface ClaimedDelivery {
  id: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  /** Attempts made before this one. */
  attempts: number;
  /** Null when deleted for good. */
  subscription: DeliverySubscription | null;
  /** Null when purged. */
  event: DeliveryEvent | null;
}

/** The claim statement's row: the delivery with its subscription's and event's columns (null when gone). */
type ClaimedRow = Omit<ClaimedDelivery, "subscription" | "event"> &
  Omit<DeliverySubscription, "id"> &
  Omit<DeliveryEvent, "id" | "type"> & { liveSubscriptionId: string | null; liveEventId: string | null };

export interface DeliverySubscription {
  id: string;
  url: string;
  status: string;
  deletedAt: Date | null;
  secretCipher: string;
  previousSecrets: unknown;
}

export interface DeliveryEvent {
  id: string;
  type: string;
  occurredAt: Date;
  payload: unknown;
}

/** An undispatched outbox event with one candidate subscription (or none). */
export interface OutboxCandidate {
  id: string;
  tenantId: string;
  environment: string;
  type: string;
  subscriptionId: string | null;
  events: string[] | null;
}
