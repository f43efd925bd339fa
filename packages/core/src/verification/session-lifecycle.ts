import type { Environment } from "@cred/contracts/scopes";
import type { TVerificationResult } from "@cred/contracts/verification-sessions";
import type { UnitOfWork } from "@cred/db";
import type { AppDeps } from "../shared/context";
import { DomainError, notFound } from "../shared/errors";
import { emitEvent } from "../shared/outbox";
import type { TenantScope } from "../shared/principal";
import { type VerificationSessionRow, verificationRepository } from "./verification-repository";
import { sealResult, sessionEventData } from "./verification-session-dto";

/** The partition a session row belongs to. */
export function scopeOfRow(row: Pick<VerificationSessionRow, "tenantId" | "environment">): TenantScope {
  return { tenantId: row.tenantId, environment: row.environment as Environment };
}

export const sessionNotFound = () => notFound("The verification session");

/**
 * Lazy expiry (spec §3.1): a pending session past its expiry becomes `expired` when it is read. The
 * transition is persisted once (conditional update) and emits `verification.session.expired` in the same
 * transaction; concurrent readers all see `expired`. Returns the row as it now stands.
 */
export async function settleExpiry(
  deps: Pick<AppDeps, "caches">,
  db: UnitOfWork,
  row: VerificationSessionRow,
  now = new Date(),
): Promise<VerificationSessionRow> {
  if (row.status !== "pending" || row.expiresAt > now) return row;
  await db.transaction(async (tx) => {
    const moved = await verificationRepository.transitionFromPending(tx, deps.caches, row, "expired", {
      encryptionKeyCipher: null,
    });
    if (moved) {
      await emitEvent(tx, scopeOfRow(row), "verification.session.expired", sessionEventData(row, "expired"));
    }
  });
  return { ...row, status: "expired", encryptionKeyCipher: null };
}

/** A session of the caller's partition, expiry settled; foreign or unknown → 404. */
export async function loadSession(
  deps: Pick<AppDeps, "caches">,
  db: UnitOfWork,
  scope: TenantScope,
  id: string,
): Promise<VerificationSessionRow> {
  const row = await verificationRepository.findSession(db, scope, id);
  if (!row) throw sessionNotFound();
  return settleExpiry(deps, db, row);
}

export const alreadyDecided = (status: string) =>
  new DomainError("InvalidState", `The verification session is ${status}; it accepts no further answer.`, [
    { code: "InvalidState", target: "id", message: "Start a new verification." },
  ]);

/**
 * Records the engine's decision: pending → verified | rejected with the sealed, claim-minimised result,
 * the single-use encryption key dropped, and the event, in one transaction. Returns null when the
 * session was no longer pending or unexpired (a concurrent answer, cancel or expiry won).
 */
export async function decideSession(
  deps: AppDeps,
  row: VerificationSessionRow,
  result: TVerificationResult,
  extra: { responseCodeHash?: string } = {},
): Promise<VerificationSessionRow | null> {
  const decidedAt = new Date(result.decidedAt);
  const resultCipher = sealResult(deps.secretBox, row.id, result);
  const moved = await verificationRepository.decideFromPending(
    deps.database.root,
    deps.caches,
    row,
    {
      status: result.outcome,
      resultCipher,
      decidedAt,
      responseCodeHash: extra.responseCodeHash ?? null,
      reasonCodes: [...new Set((result.reasons ?? []).map((reason) => reason.code))],
    },
    {
      scope: scopeOfRow(row),
      type: `verification.session.${result.outcome}`,
      data: sessionEventData(row, result.outcome),
    },
  );
  if (!moved) return null;
  deps.metrics.verificationCompleted(result.outcome);
  return {
    ...row,
    status: result.outcome,
    resultCipher,
    decidedAt,
    encryptionKeyCipher: null,
    responseCodeHash: extra.responseCodeHash ?? null,
    reasonCodes: [...new Set((result.reasons ?? []).map((reason) => reason.code))],
  };
}
