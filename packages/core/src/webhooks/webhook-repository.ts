import type { Prisma, UnitOfWork } from "@cred/db";
import type { TenantScope } from "../shared/principal";
import type { PreviousSecret } from "./previous-secrets";

/** Subscriptions are soft-deleted (their deliveries stay listed); a deleted one reads as absent. */
const live = { deletedAt: null };

export const webhookRepository = {
  create(db: UnitOfWork, data: Prisma.WebhookSubscriptionUncheckedCreateInput) {
    return db.prisma.webhookSubscription.create({ data });
  },
  findById(db: UnitOfWork, scope: TenantScope, id: string) {
    return db.prisma.webhookSubscription.findFirst({ where: { id, ...scope, ...live } });
  },
  list(db: UnitOfWork, scope: TenantScope, page: { afterId?: string; take: number }) {
    return db.prisma.webhookSubscription.findMany({
      where: { ...scope, ...live, ...(page.afterId ? { id: { gt: page.afterId } } : {}) },
      orderBy: { id: "asc" },
      take: page.take,
    });
  },
  /** Marks a live subscription deleted; false when there is none. */
  async softDelete(db: UnitOfWork, scope: TenantScope, id: string, at: Date) {
    const { count } = await db.prisma.webhookSubscription.updateMany({
      where: { id, ...scope, ...live },
      data: { deletedAt: at },
    });
    return count === 1;
  },
  /** Changes a live subscription; null when there is none (unknown, foreign or deleted). */
  async update(
    db: UnitOfWork,
    scope: TenantScope,
    id: string,
    changes: Pick<
      Prisma.WebhookSubscriptionUncheckedUpdateManyInput,
      "url" | "events" | "description" | "status" | "disabledReason"
    >,
  ) {
    const { count } = await db.prisma.webhookSubscription.updateMany({
      where: { id, ...scope, ...live },
      data: changes,
    });
    return count === 1 ? this.findById(db, scope, id) : null;
  },
  /** Locks the subscription row until the transaction ends (two rotations at once queue). */
  async lockForUpdate(db: UnitOfWork, id: string) {
    await db.prisma.$queryRaw`SELECT 1 FROM "WebhookSubscription" WHERE "id" = ${id} FOR UPDATE`;
  },
  rotateSecret(
    db: UnitOfWork,
    scope: TenantScope,
    id: string,
    data: { secretCipher: string; previousSecrets: PreviousSecret[] },
  ) {
    return db.prisma.webhookSubscription.update({ where: { id, ...scope }, data });
  },
};

export const webhookDeliveryRepository = {
  findById(db: UnitOfWork, scope: TenantScope, id: string) {
    return db.prisma.webhookDelivery.findFirst({ where: { id, ...scope } });
  },
  /** Makes a delivery due now (status pending); the worker's claim and attempt fence still apply. */
  scheduleNow(db: UnitOfWork, scope: TenantScope, id: string, at: Date) {
    return db.prisma.webhookDelivery.update({
      where: { id, ...scope },
      data: { status: "pending", nextAttemptAt: at },
    });
  },
  list(
    db: UnitOfWork,
    scope: TenantScope,
    filter: { subscriptionId?: string; status?: string; eventType?: string },
    page: { afterId?: string; take: number },
  ) {
    return db.prisma.webhookDelivery.findMany({
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
  forDeliveries(db: UnitOfWork, deliveryIds: string[]) {
    if (deliveryIds.length === 0) return Promise.resolve([]);
    return db.prisma.webhookAttempt.findMany({
      where: { deliveryId: { in: deliveryIds } },
      orderBy: [{ deliveryId: "asc" }, { attemptNumber: "asc" }],
    });
  },
};

export type WebhookAttemptRow = Awaited<ReturnType<typeof webhookAttemptRepository.forDeliveries>>[number];
export type WebhookSubscriptionRow = NonNullable<Awaited<ReturnType<typeof webhookRepository.findById>>>;
export type WebhookDeliveryRow = Awaited<ReturnType<typeof webhookDeliveryRepository.list>>[number];
