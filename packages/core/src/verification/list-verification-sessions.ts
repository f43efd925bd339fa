import type {
  TListVerificationSessionsRequest,
  TVerificationSession,
} from "@cred/contracts/verification-sessions";
import type { UnitOfWork } from "@cred/db";
import type { AppDeps } from "../shared/context";
import { createdAtRange, newestFirstIdWindow } from "../shared/newest-first";
import { toPage } from "../shared/pagination";
import type { TenantScope } from "../shared/principal";
import { resultWithheld } from "./get-verification-session";
import { type VerificationSessionRow, verificationRepository } from "./verification-repository";
import { toVerificationSessionDto } from "./verification-session-dto";

/** A pending session past its expiry, as a read shows it; mapped in memory, nothing written per row. */
function asRead(row: VerificationSessionRow, now: Date): VerificationSessionRow {
  return row.status === "pending" && row.expiresAt <= now ? { ...row, status: "expired" } : row;
}

/**
 * VerificationSessions_List: the caller's partition, newest first. Each item is what
 * VerificationSessions_Get shows (no response code): the outcome with its reasons, and each credential's
 * checks and claim-minimised claims, unless the policy withholds the result from reads without the
 * response code (`resultWithheld: true`).
 */
export async function listVerificationSessions(
  deps: AppDeps,
  db: UnitOfWork,
  scope: TenantScope,
  input: TListVerificationSessionsRequest,
): Promise<{ data: TVerificationSession[]; nextCursor: string | null }> {
  const now = new Date();
  const rows = await verificationRepository.listSessions(
    db,
    scope,
    {
      status: input.status,
      now,
      policyIdentifier: input.policy,
      reasonCode: input.reason,
      createdAt: createdAtRange(input),
    },
    { ids: newestFirstIdWindow("vs", input), take: input.limit + 1 },
  );
  return toPage(rows, input.limit, (row) =>
    toVerificationSessionDto(deps, asRead(row, now), { withholdResult: resultWithheld(row, {}) }),
  );
}
