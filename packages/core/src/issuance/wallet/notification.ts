import { type Db, type FastSql, inTransaction, sqlFor } from "@cred/db";
import { OAuthError } from "@cred/oid4vc";
import { emitEvent } from "../../shared/outbox";
import { scopeOfRow } from "../../shared/scope-of";
import { lockBatch } from "../lock-batch";
import { type ProtectedRequest, transactionForToken } from "./credential";
import { NO_STORE } from "./load-wallet-issuer";

const EVENTS = {
  credential_accepted: "credential.accepted",
  credential_failure: "credential.failed",
  credential_deleted: "credential.deleted",
} as const;

const invalid = (code: string, description: string) =>
  new OAuthError(code, description, { status: 400, headers: NO_STORE });

/** Notification endpoint (OpenID4VCI §11): idempotent, 204; recorded on the credentials and emitted as an event. */
export async function recordNotification(
  database: { prisma: Db; fast: FastSql },
  issuerId: string,
  request: ProtectedRequest,
  body: unknown,
) {
  const db = database.prisma;
  const { tx } = await transactionForToken(database.fast, issuerId, request);
  if (typeof body !== "object" || body === null)
    throw invalid("invalid_notification_request", "Send a JSON object.");
  const {
    notification_id: notificationId,
    event,
    event_description: description,
  } = body as Record<string, unknown>;
  if (typeof notificationId !== "string" || typeof event !== "string" || !Object.hasOwn(EVENTS, event)) {
    throw invalid("invalid_notification_request", "notification_id and a known event are required.");
  }
  if (description !== undefined && typeof description !== "string") {
    throw invalid("invalid_notification_request", "event_description must be a string.");
  }
  const credential = await db.credential.findUnique({ where: { notificationId } });
  if (!credential || credential.transactionId !== tx.id) {
    throw invalid("invalid_notification_id", "The notification_id is not known for this access token.");
  }
  if (credential.notificationEvent === event) return; // idempotent repeat
  await inTransaction(db, async (dbtx) => {
    await lockBatch(sqlFor(dbtx, database.prisma, database.fast), tx.id);
    await dbtx.credential.updateMany({
      where: { transactionId: tx.id },
      data: { notificationEvent: event, notifiedAt: new Date() },
    });
    const ids = await dbtx.credential.findMany({ where: { transactionId: tx.id }, select: { id: true } });
    await emitEvent(dbtx, scopeOfRow(tx), EVENTS[event as keyof typeof EVENTS], {
      transactionId: tx.id,
      issuerId,
      credentialIds: ids.map((c) => c.id),
      event,
    });
  });
}
