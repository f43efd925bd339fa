import type { Db, Prisma } from "@cred/db";
import type { TenantScope } from "../shared/principal";
import type { PreviousSecret } from "./previous-secrets";

/** Subscriptions are soft-deleted (their deliveries stay listed); a deleted one reads as absent. */
const live = { deletedAt: null };

export const webhookRepository = {
  create(db: Db, data: Prisma.WebhookSubscriptionUncheckedCreateInput) {
    return db.webhookSubscription.create({ data });
  },
  findById(db: Db, scope: TenantScope, id: string) {
    return db.webhookSubscription.findFirst({ where: { id, ...scope, ...live } });
  },
  list(db: Db, scope: TenantScope, page: { afterId?: string; take: number }) {
    return db.webhookSubscription.findMany({
      where: { ...scope, ...live, ...(page.afterId ? { id: { gt: page.afterId } } : {}) },
      orderBy: { id: "asc" },
      take: page.take,
    });
  },
  /** Marks a live subscription deleted; false when there is none. */
  async softDelete(db: Db, scope: TenantScope, id: string, at: Date) {
    const { count } = await db.webhookSubscription.updateMany({
      where: { id, ...scope, ...live },
      data: { deletedAt: at },
    });
    return count === 1;
  },
  /** Locks the subscription row until the transaction ends (two rotations at once queue). */
  async lockForUpdate(db: Db, id: string) {
    await db.$queryRaw`SELECT 1 FROM "WebhookSubscription" WHERE "id" = ${id} FOR UPDATE`;
  },
  rotateSecret(
    db: Db,
    scope: TenantScope,
    id: string,
    data: { secretCipher: string; previousSecrets: PreviousSecret[] },
  ) {
    return db.webhookSubscription.update({ where: { id, ...scope }, data });
  },
};

export const webhookDeliveryRepository = {
  findById(db: Db, scope: TenantScope, id: string) {
    return db.webhookDelivery.findFirst({ where: { id, ...scope } });
  },
  /** Makes a delivery due now (status pending); the worker's claim and attempt fence still apply. */
  scheduleNow(db: Db, scope: TenantScope, id: string, at: Date) {
    return db.webhookDelivery.update({
      where: { id, ...scope },
      data: { status: "pending", nextAttemptAt: at },
    });
  },
  list(
    db: Db,
    scope: TenantScope,
    filter: { subscriptionId?: string; status?: string; eventType?: string },
    page: { afterId?: string; take: number },
  ) {
    return db.webhookDelivery.findMany({
      where: {
        ...scope,
        ...(filter.subscriptionId ? { subscriptionId: filter.subscriptionId } : {}),
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.eventType ? { eventType: filter.eventType } : {}),
        ...(page.afterId ? { id: { gt: page.afterId } } : {}),
      },
      orderBy: { id: "asc" },
      take: page.take,
    });
  },
};

export const webhookAttemptRepository = {
  /** The attempts of these deliveries (already scoped by the caller), oldest first per delivery. */
  forDeliveries(db: Db, deliveryIds: string[]) {
    if (deliveryIds.length === 0) return Promise.resolve([]);
    return db.webhookAttempt.findMany({
      where: { deliveryId: { in: deliveryIds } },
      orderBy: [{ deliveryId: "asc" }, { attemptNumber: "asc" }],
    });
  },
};

export type WebhookAttemptRow = Awaited<ReturnType<typeof webhookAttemptRepository.forDeliveries>>[number];
export type WebhookSubscriptionRow = NonNullable<Awaited<ReturnType<typeof webhookRepository.findById>>>;
export type WebhookDeliveryRow = Awaited<ReturnType<typeof webhookDeliveryRepository.list>>[number];
