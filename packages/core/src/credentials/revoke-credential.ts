import type { zCredentialStatus } from "@cred/contracts/credentials";
import type { UnitOfWork } from "@cred/db";
import type { z } from "zod";
import { configurationCatalog } from "../credential-configurations";
import { issuanceRepository } from "../issuance";
import { issuerUrls } from "../issuers";
import type { AppDeps, CoreConfig } from "../shared/context";
import { DomainError, notFound } from "../shared/errors";
import type { Principal } from "../shared/principal";
import { scopeOf } from "../shared/scope-of";
import { type CredentialRow, credentialRepository } from "./credential-repository";

function toDto(
  config: CoreConfig,
  row: CredentialRow,
  configurationIdentifier: string,
): z.infer<typeof zCredentialStatus> {
  return {
    credentialId: row.id,
    status: row.status as "issued" | "revoked",
    issuerId: row.issuerId,
    credentialConfiguration: configurationIdentifier,
    issuedAt: row.issuedAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
    statusList:
      row.statusListId !== null && row.statusIndex !== null
        ? { uri: issuerUrls(config, row.issuerId).statusList(row.statusListId), idx: row.statusIndex }
        : null,
  };
}

/**
 * Revokes a credential: irreversible and immediate. A batch (several copies issued to one wallet in one
 * credential request, OpenID4VCI `batch_credential_issuance`, or in further requests with the same
 * access token, §14.3) is one credential to its holder, so revoking any copy revokes every copy of its
 * issuance transaction, in one database transaction, and ends further issuance from it; the response
 * describes the copy asked for. Revoking again returns the revoked state (200). A suspended credential
 * (Credentials_Suspend) can be revoked: its entry goes from SUSPENDED (2) to INVALID (1).
 */
export async function revokeCredential(
  deps: Pick<AppDeps, "database" | "config" | "caches" | "metrics">,
  db: UnitOfWork,
  principal: Principal,
  credentialId: string,
) {
  const find = () =>
    credentialRepository.findVisible(db, scopeOf({ principal }), principal.issuerId, credentialId);
  let row = await find();
  if (!row) throw notFound("The credential");
  const configuration = await configurationCatalog.configurationById(
    deps.database.root,
    deps.caches,
    row.configurationId,
  );
  if (!configuration) throw new Error(`configuration ${row.configurationId} of ${row.id} is missing`);
  if (row.statusListId === null || row.statusIndex === null) {
    throw new DomainError(
      "RevocationNotSupported",
      "This credential was issued without a status entry (statusEnabled is false), so it cannot be revoked.",
    );
  }
  if (row.reissuable) {
    // The wallet may still ask for more with its access token (OpenID4VCI §14.3): a revoked credential
    // is not handed out again, so its claims go first; then the copies issued until then are counted.
    await issuanceRepository.stopReissue(db, row.transactionId, new Date());
    row = await find();
    if (!row) throw notFound("The credential");
  }
  // A revoked copy of a batch still revokes its siblings (copies left valid by an earlier version).
  if (row.status === "revoked" && row.copies <= 1) return toDto(deps.config, row, configuration.identifier);
  let updated: CredentialRow | null = null;
  if (row.copies > 1) {
    await db.transaction(async (tx) => {
      await issuanceRepository.lockBatch(tx, row.transactionId);
      // Every copy, in one order (list, index), so concurrent revocations lock the lists alike.
      const copies = await credentialRepository.issuedCopies(tx, row.transactionId, ["issued", "suspended"]);
      for (const copy of copies) await revokeCopy(deps, tx, copy, configuration.identifier);
    });
  } else {
    updated = await revokeCopy(deps, db, row, configuration.identifier);
  }
  // A batch, or a concurrent change that got there first: read the state left behind.
  updated ??= await find();
  if (!updated) throw notFound("The credential");
  // A suspension or reinstatement committed between the read and the write: revoke what it left.
  if (updated.status !== "revoked" && row.copies <= 1) {
    updated = (await revokeCopy(deps, db, updated, configuration.identifier)) ?? (await find());
    if (!updated) throw notFound("The credential");
  }
  return toDto(deps.config, updated, configuration.identifier);
}

/**
 * An issued copy goes through the measured revocation statement; a suspended one (status value 2)
 * through the general status change, which writes the entry's value 1 instead of or-ing a bit into 2.
 */
async function revokeCopy(
  deps: Pick<AppDeps, "metrics">,
  db: UnitOfWork,
  row: CredentialRow,
  configurationIdentifier: string,
) {
  const revoked = await revokeCopyStatement(db, row, configurationIdentifier);
  if (revoked) db.afterCommit(() => deps.metrics.credentialStatusChanged("revoked"));
  return revoked;
}

function revokeCopyStatement(db: UnitOfWork, row: CredentialRow, configurationIdentifier: string) {
  if (row.status === "suspended") {
    return credentialRepository.changeStatus(db, row, configurationIdentifier, {
      from: "suspended",
      to: "revoked",
      value: 1,
      event: "credential.revoked",
      eventStatus: "revoked",
    });
  }
  return credentialRepository.revoke(db, row, configurationIdentifier);
}
