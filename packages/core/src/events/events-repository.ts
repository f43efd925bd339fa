import type { Db, Prisma } from "@cred/db";

/** The events slice's Prisma calls: delivery claims and attempts, the sweeper (the outbox fan-out is in dispatch-outbox-events.ts). */
export const eventsRepository = {
  /**
   * Claims up to `take` due deliveries in one statement: rows another worker holds (row lock or
   * unexpired lease) are skipped, and the lease keeps them reserved after the statement commits.
   */
  async claimDue(db: Db, now: Date, leaseUntil: Date, take: number) {
    const claimed = await db.$queryRaw<{ id: string }[]>`
      UPDATE "WebhookDelivery" SET "lockedUntil" = ${leaseUntil}
       WHERE "id" IN (
         SELECT "id" FROM "WebhookDelivery"
          WHERE "status" = 'pending'
            AND "nextAttemptAt" <= ${now}
            AND ("lockedUntil" IS NULL OR "lockedUntil" <= ${now})
          ORDER BY "nextAttemptAt", "id"
          LIMIT ${take}
          FOR UPDATE SKIP LOCKED)
       RETURNING "id"`;
    if (claimed.length === 0) return [];
    return db.webhookDelivery.findMany({
      where: { id: { in: claimed.map((r) => r.id) } },
      orderBy: { id: "asc" },
    });
  },
  findSubscription(db: Db, id: string) {
    return db.webhookSubscription.findUnique({ where: { id } });
  },
  findEvent(db: Db, id: string) {
    return db.outboxEvent.findUnique({ where: { id } });
  },
  /**
   * Records attempt `attemptNumber` and its outcome on the delivery, fenced on the attempt count the
   * worker claimed: false (nothing written) when another worker recorded that attempt first.
   */
  async recordAttempt(
    tx: Db,
    attempt: Prisma.WebhookAttemptUncheckedCreateInput,
    delivery: Omit<Prisma.WebhookDeliveryUpdateManyMutationInput, "attempts">,
  ) {
    const { count } = await tx.webhookDelivery.updateMany({
      where: { id: attempt.deliveryId, attempts: attempt.attemptNumber - 1 },
      data: { ...delivery, attempts: attempt.attemptNumber, lockedUntil: null },
    });
    if (count !== 1) return false;
    await tx.webhookAttempt.create({ data: attempt });
    return true;
  },
  /** Ends a delivery without an attempt (its subscription is gone or disabled). */
  async closeWithoutAttempt(db: Db, id: string, attempts: number, lastError: string) {
    await db.webhookDelivery.updateMany({
      where: { id, attempts, status: "pending" },
      data: { status: "failed", nextAttemptAt: null, lockedUntil: null, lastError },
    });
  },
  async disableSubscription(tx: Db, id: string, reason: string) {
    await tx.webhookSubscription.updateMany({
      where: { id, status: "active" },
      data: { status: "disabled", disabledReason: reason },
    });
  },

  // Sweeper ---------------------------------------------------------------------------------------

  expiredPendingIssuanceTransactions(db: Db, now: Date, take: number) {
    return db.issuanceTransaction.findMany({
      where: { status: "pending", expiresAt: { lte: now }, expiryEventAt: null },
      orderBy: { expiresAt: "asc" },
      take,
    });
  },
  /** pending → expired exactly once (the conditional update on `expiryEventAt IS NULL` decides). */
  async expireIssuanceTransaction(tx: Db, id: string, now: Date) {
    const { count } = await tx.issuanceTransaction.updateMany({
      where: { id, status: "pending", expiresAt: { lte: now }, expiryEventAt: null },
      data: {
        status: "expired",
        expiryEventAt: now,
        claimsCipher: null,
        offerCipher: null,
        preAuthorizedCodeHash: null,
        offerHandleHash: null,
      },
    });
    if (count === 1) await tx.accessToken.deleteMany({ where: { transactionId: id } });
    return count === 1;
  },
  expiredPendingVerificationSessions(db: Db, now: Date, take: number) {
    return db.verificationSession.findMany({
      where: { status: "pending", expiresAt: { lte: now } },
      orderBy: { expiresAt: "asc" },
      take,
    });
  },
};

export type ClaimedDelivery = Awaited<ReturnType<typeof eventsRepository.claimDue>>[number];
