import type { TVerificationSession } from "@cred/contracts/verification-sessions";
import type { UnitOfWork } from "@cred/db";
import type { AppDeps } from "../shared/context";
import { DomainError } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import { constantTimeEqual, hashSecret } from "../shared/secret-box";
import type { TPolicyRules } from "../verification-policies";
import { loadSession } from "./session-lifecycle";
import type { VerificationSessionRow } from "./verification-repository";
import { toVerificationSessionDto } from "./verification-session-dto";

/**
 * Reads a session (Verifications_Get and VerificationSessions_Get return the same resource). A pending
 * session past its expiry is returned, and persisted, as `expired`. With `responseCode` (the value the
 * same-device redirect delivered), the code must be the one issued for this session. Under a policy that
 * requires it, a session decided with a response code shows its result only to a read that passed it.
 */
export async function getVerificationSession(
  deps: AppDeps,
  db: UnitOfWork,
  scope: TenantScope,
  id: string,
  options: { responseCode?: string } = {},
): Promise<TVerificationSession> {
  const row = await loadSession(deps, db, scope, id);
  if (options.responseCode !== undefined) {
    const expected = row.responseCodeHash;
    if (!expected || !constantTimeEqual(hashSecret(options.responseCode), expected)) {
      throw new DomainError("ValidationFailed", "The response code does not belong to this verification.", [
        {
          code: "ResponseCodeMismatch",
          target: "responseCode",
          message: "Pass the response_code of this session's redirect.",
        },
      ]);
    }
  }
  return toVerificationSessionDto(deps, row, { withholdResult: resultWithheld(row, options) });
}

/**
 * Whether a read shows the result: under a policy that requires it, a session decided with a response
 * code shows its result only to a read that passed the code (VerificationSessions_List never does).
 */
export function resultWithheld(
  row: Pick<VerificationSessionRow, "rules" | "responseCodeHash">,
  options: { responseCode?: string },
): boolean {
  return (
    (row.rules as Partial<TPolicyRules>).requireResponseCode === true &&
    row.responseCodeHash !== null &&
    options.responseCode === undefined
  );
}
