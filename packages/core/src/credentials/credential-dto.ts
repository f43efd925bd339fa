import type { CredentialState, TCredential } from "@cred/contracts/credentials";
import { issuerUrls } from "../issuers";
import type { CoreConfig } from "../shared/context";
import type { CredentialReadRow } from "./credential-repository";

/**
 * The read model's state: a revocation is final; otherwise a credential past its `exp` is `expired`
 * (derived at read time, nothing stores it), else `suspended` or `active` as its status list entry says.
 */
export function credentialState(
  row: Pick<CredentialReadRow, "status" | "expiresAt">,
  now: Date,
): CredentialState {
  if (row.status === "revoked") return "revoked";
  if (row.expiresAt.getTime() <= now.getTime()) return "expired";
  return row.status === "suspended" ? "suspended" : "active";
}

/** Credentials_Get/List's DTO: metadata and state, never claims (they are not kept). */
export function toCredential(config: CoreConfig, row: CredentialReadRow, now: Date): TCredential {
  return {
    id: row.id,
    credentialConfiguration: row.configurationIdentifier,
    configurationVersion: row.configurationVersion,
    issuerId: row.issuerId,
    transactionId: row.transactionId,
    status: credentialState(row, now),
    issuedAt: row.issuedAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
    suspendedAt: row.suspendedAt?.toISOString() ?? null,
    statusList:
      row.statusListId !== null && row.statusIndex !== null
        ? { uri: issuerUrls(config, row.issuerId).statusList(row.statusListId), idx: row.statusIndex }
        : null,
    holderKeyThumbprint: row.holderKeyThumbprint,
  };
}
