import type { UnitOfWork } from "@cred/db";
import { type Caches, cacheSpec } from "../shared/caches";

export interface OpenStatusList {
  id: string;
  size: number;
}

/** The list new credentials draw from, per issuer; re-read when a list fills up. */
export const OPEN_STATUS_LISTS = cacheSpec<OpenStatusList | null>("issuance.openStatusLists", {
  max: 10_000,
  ttlMs: 60_000,
});

/**
 * What issuance records beside its transaction: the credentials it issued (as the wallet's notifications
 * reach them) and the status lists it draws their indices from. Wallet side: keyed by an unguessable
 * notification id, by the transaction of a checked access token, or by the issuer id of the URL.
 */
export const issuedCredentialRepository = {
  /** The credential a wallet's `notification_id` (unguessable) names; the caller checks its transaction. */
  findByNotificationId(db: UnitOfWork, notificationId: string) {
    return db.prisma.credential.findUnique({ where: { notificationId } });
  },

  /**
   * Records a wallet's notification event on every credential of the transaction; their ids. Run it in a
   * transaction, after `issuanceRepository.lockBatch`.
   */
  async recordNotification(db: UnitOfWork, transactionId: string, event: string, now: Date) {
    await db.prisma.credential.updateMany({
      where: { transactionId },
      data: { notificationEvent: event, notifiedAt: now },
    });
    const ids = await db.prisma.credential.findMany({ where: { transactionId }, select: { id: true } });
    return ids.map((c) => c.id);
  },

  /** The newest list of the issuer not marked full, if any (read through `OPEN_STATUS_LISTS`). */
  findOpenStatusList(db: UnitOfWork, issuerId: string): Promise<OpenStatusList | null> {
    return db.prisma.statusList.findFirst({
      where: { issuerId, full: false },
      orderBy: { id: "desc" },
      select: { id: true, size: true },
    });
  },

  /** Marks a list full and forgets the issuer's open list once that commits. */
  async markStatusListFull(db: UnitOfWork, caches: Caches, issuerId: string, listId: string) {
    await db.prisma.statusList.update({ where: { id: listId }, data: { full: true } });
    db.afterCommit(() => caches.of(OPEN_STATUS_LISTS).delete(issuerId));
  },
};
