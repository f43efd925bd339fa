import type { TVerificationSession } from "@cred/contracts/verification-sessions";
import type { UnitOfWork } from "@cred/db";
import type { AppDeps } from "../shared/context";
import { DomainError } from "../shared/errors";
import { emitEvent } from "../shared/outbox";
import type { TenantScope } from "../shared/principal";
import { loadSession } from "./session-lifecycle";
import { verificationRepository } from "./verification-repository";
import { sessionEventData, toVerificationSessionDto } from "./verification-session-dto";

/**
 * Spec §3.1: pending → cancelled (200); cancelled again → 200 unchanged; verified, rejected or expired
 * (including a pending session past its expiry) → 409 InvalidState.
 */
export async function cancelVerificationSession(
  deps: AppDeps,
  db: UnitOfWork,
  scope: TenantScope,
  id: string,
): Promise<TVerificationSession> {
  const row = await loadSession(deps, db, scope, id);
  if (row.status === "cancelled") return toVerificationSessionDto(deps, row);
  const conflict = (status: string) =>
    new DomainError("InvalidState", `The verification session is ${status} and cannot be cancelled.`, [
      { code: "InvalidState", target: "id", message: "Only a pending session can be cancelled." },
    ]);
  if (row.status !== "pending") throw conflict(row.status);
  const now = new Date();
  const moved = await db.transaction(async (tx) => {
    const ok = await verificationRepository.transitionFromPending(
      tx,
      deps.caches,
      row,
      "cancelled",
      { encryptionKeyCipher: null },
      now,
    );
    if (ok) await emitEvent(tx, scope, "verification.session.cancelled", sessionEventData(row, "cancelled"));
    return ok;
  });
  if (!moved) {
    // A concurrent answer, cancel or expiry got there first: report what it left.
    const current = await loadSession(deps, db, scope, id);
    if (current.status === "cancelled") return toVerificationSessionDto(deps, current);
    throw conflict(current.status);
  }
  return toVerificationSessionDto(deps, { ...row, status: "cancelled", encryptionKeyCipher: null });
}
