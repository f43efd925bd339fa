import { type Db, type FastSql, inTransaction, sqlFor } from "@cred/db";
import { notificationError, parseNotificationRequest, type TNotificationEvent } from "@cred/oid4vc";
import { emitEvent } from "../../shared/outbox";
import { scopeOfRow } from "../../shared/scope-of";
import { lockBatch } from "../lock-batch";
import { type ProtectedRequest, transactionForToken } from "./credential";

const EVENTS: Record<TNotificationEvent, string> = {
  credential_accepted: "credential.accepted",
  credential_failure: "credential.failed",
  credential_deleted: "credential.deleted",
};

/** Notification endpoint (OpenID4VCI §11): idempotent, 204; recorded on the credentials and emitted as an event. */
export async function recordNotification(
  database: { prisma: Db; fast: FastSql },
  issuerId: string,
  request: ProtectedRequest,
  body: unknown,
) {
  const db = database.prisma;
  const { tx } = await transactionForToken(database.fast, issuerId, request);
  const { notification_id: notificationId, event } = parseNotificationRequest(body);
  const credential = await db.credential.findUnique({ where: { notificationId } });
  if (!credential || credential.transactionId !== tx.id) {
    throw notificationError(
      "invalid_notification_id",
      "The notification_id is not known for this access token.",
    );
  }
  if (credential.notificationEvent === event) return; // idempotent repeat
  await inTransaction(db, async (dbtx) => {
    await lockBatch(sqlFor(dbtx, database.prisma, database.fast), tx.id);
    await dbtx.credential.updateMany({
      where: { transactionId: tx.id },
      data: { notificationEvent: event, notifiedAt: new Date() },
    });
    const ids = await dbtx.credential.findMany({ where: { transactionId: tx.id }, select: { id: true } });
    await emitEvent(dbtx, scopeOfRow(tx), EVENTS[event], {
      transactionId: tx.id,
      issuerId,
      credentialIds: ids.map((c) => c.id),
      event,
    });
  });
}
