import type { UnitOfWork } from "@cred/db";
import { notificationError, parseNotificationRequest, type TNotificationEvent } from "@cred/oid4vc";
import { type ProtectedRequest, transactionForToken } from "../../authorization-server";
import type { Caches } from "../../shared/caches";
import { emitEvent } from "../../shared/outbox";
import { scopeOfRow } from "../../shared/scope-of";
import { issuanceRepository } from "../issuance-repository";
import { issuedCredentialRepository } from "../issued-credential-repository";

const EVENTS: Record<TNotificationEvent, string> = {
  credential_accepted: "credential.accepted",
  credential_failure: "credential.failed",
  credential_deleted: "credential.deleted",
};

/** Notification endpoint (OpenID4VCI §11): idempotent, 204; recorded on the credentials and emitted as an event. */
export async function recordNotification(
  db: UnitOfWork,
  caches: Caches,
  issuerId: string,
  request: ProtectedRequest,
  body: unknown,
) {
  const { tx } = await transactionForToken(db, caches, issuerId, request);
  const { notification_id: notificationId, event } = parseNotificationRequest(body);
  const credential = await issuedCredentialRepository.findByNotificationId(db, notificationId);
  if (!credential || credential.transactionId !== tx.id) {
    throw notificationError(
      "invalid_notification_id",
      "The notification_id is not known for this access token.",
    );
  }
  if (credential.notificationEvent === event) return; // idempotent repeat
  await db.transaction(async (dbtx) => {
    await issuanceRepository.lockBatch(dbtx, tx.id);
    const ids = await issuedCredentialRepository.recordNotification(dbtx, tx.id, event, new Date());
    await emitEvent(dbtx, scopeOfRow(tx), EVENTS[event], {
      transactionId: tx.id,
      issuerId,
      credentialIds: ids,
      event,
    });
  });
}
