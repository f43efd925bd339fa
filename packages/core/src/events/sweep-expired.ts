import type { Database } from "@cred/db";
import { retireExpiredCredentialEncryptionKeys } from "../issuers";
import type { AppDeps, CoreConfig } from "../shared/context";
import { emitEvent } from "../shared/outbox";
import { scopeOfRow } from "../shared/scope-of";
import { settleExpiry } from "../verification";
import { eventsRepository } from "./events-repository";
import { purgeRepository } from "./purge-repository";

const DAY_MS = 24 * 3_600_000;
/** How long an outbox event that no subscription received is kept after its fan-out. */
const DEFAULT_EVENT_RETENTION_MS = DAY_MS;

export interface SweepReport {
  issuanceTransactionsExpired: number;
  verificationSessionsExpired: number;
  idempotencyRecordsPurged: number;
  walletNoncesPurged: number;
  accessTokensPurged: number;
  dpopProofsPurged: number;
  authorizationRequestsPurged: number;
  webhookDeliveriesPurged: number;
  outboxEventsPurged: number;
  credentialEncryptionKeysRetired: number;
}

/**
 * Periodic housekeeping: emits `issuance.transaction.expired` and `verification.session.expired` for
 * pending ones past their expiry that nobody read (each exactly once: a conditional update decides,
 * in the same transaction as the event, so the read-time transition and the sweeper never both
 * emit), and purges expired idempotency records, wallet nonces and access tokens, finished webhook
 * deliveries (with their attempts, and their event with the last of them)
 * `config.webhookDeliveryRetentionDays` after their last change, and outbox events fanned out to no
 * subscription a day after their fan-out, and clears replaced credential encryption keys from the
 * issuer keys once their overlap is over.
 */
export async function sweepExpired(
  deps: Pick<AppDeps, "caches" | "keyCustody"> & {
    database: Database;
    config: Pick<CoreConfig, "webhookDeliveryRetentionDays">;
  },
  options: { batchSize?: number; now?: Date; purgeChunk?: number; eventRetentionMs?: number } = {},
): Promise<SweepReport> {
  const db = deps.database.root;
  const now = options.now ?? new Date();
  const take = options.batchSize ?? 200;

  let issuanceTransactionsExpired = 0;
  for (const row of await eventsRepository.expiredPendingIssuanceTransactions(db, now, take)) {
    const moved = await db.transaction(async (tx) => {
      if (!(await eventsRepository.expireIssuanceTransaction(tx, row.id, now))) return false;
      await emitEvent(tx, scopeOfRow(row), "issuance.transaction.expired", {
        transactionId: row.id,
        issuerId: row.issuerId,
        credentialConfiguration: row.configurationIdentifier,
        status: "expired",
        callbackReference: row.callbackReference,
        externalSubjectReference: row.externalSubjectReference,
      });
      return true;
    });
    if (moved) issuanceTransactionsExpired++;
  }

  // The verification slice owns the pending → expired transition (and its event); reuse it.
  let verificationSessionsExpired = 0;
  for (const row of await eventsRepository.expiredPendingVerificationSessions(db, now, take)) {
    await settleExpiry(deps, db, row, now);
    verificationSessionsExpired++;
  }

  const ago = (ms: number) => new Date(now.getTime() - ms);
  const idempotencyRecordsPurged = await purgeRepository.expired(
    db,
    "IdempotencyRecord",
    now,
    options.purgeChunk,
  );
  const walletNoncesPurged = await purgeRepository.expired(db, "WalletNonce", now, options.purgeChunk);
  const accessTokensPurged = await purgeRepository.expired(db, "AccessToken", now, options.purgeChunk);
  const dpopProofsPurged = await purgeRepository.expired(db, "DpopProofUse", now, options.purgeChunk);
  const authorizationRequestsPurged = await purgeRepository.expired(
    db,
    "AuthorizationRequest",
    now,
    options.purgeChunk,
  );
  // An event goes with its last delivery here; the events nobody received go next.
  const finished = await purgeRepository.finishedDeliveries(
    db,
    ago(deps.config.webhookDeliveryRetentionDays * DAY_MS),
    options.purgeChunk,
  );
  const undelivered = await purgeRepository.undeliveredEvents(
    db,
    ago(options.eventRetentionMs ?? DEFAULT_EVENT_RETENTION_MS),
    options.purgeChunk,
  );
  const credentialEncryptionKeysRetired = await retireExpiredCredentialEncryptionKeys(deps, db, now);
  return {
    issuanceTransactionsExpired,
    verificationSessionsExpired,
    idempotencyRecordsPurged,
    walletNoncesPurged,
    accessTokensPurged,
    dpopProofsPurged,
    authorizationRequestsPurged,
    webhookDeliveriesPurged: finished.deliveries,
    outboxEventsPurged: finished.events + undelivered,
    credentialEncryptionKeysRetired,
  };
}
