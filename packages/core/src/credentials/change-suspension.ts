import type { UnitOfWork } from "@cred/db";
import { configurationCatalog } from "../credential-configurations";
import { issuanceRepository } from "../issuance";
import type { AppDeps } from "../shared/context";
import { DomainError, notFound } from "../shared/errors";
import type { Principal } from "../shared/principal";
import { scopeOf } from "../shared/scope-of";
import { toCredential } from "./credential-dto";
import { type CredentialRow, credentialRepository, type StatusChange } from "./credential-repository";

export const SUSPEND: StatusChange = {
  from: "issued",
  to: "suspended",
  value: 2,
  event: "credential.suspended",
  eventStatus: "suspended",
};

export const REINSTATE: StatusChange = {
  from: "suspended",
  to: "issued",
  value: 0,
  event: "credential.reinstated",
  eventStatus: "active",
};

const verb = (change: StatusChange) => (change === SUSPEND ? "suspended" : "reinstated");

function revokedIsFinal(change: StatusChange) {
  return new DomainError(
    "InvalidState",
    `The credential is revoked, which is final; it cannot be ${verb(change)}.`,
    [{ code: "InvalidState", target: "credentialId", message: "A revoked credential stays revoked." }],
  );
}

/**
 * Suspends or reinstates a credential through its status list entry (2 SUSPENDED, 0 VALID; IETF Token
 * Status List), visible on the next status list fetch, with one event per copy changed. As with
 * revocation, a batch (the copies of one issuance transaction) is one credential to its holder, so every
 * copy in the `from` state changes with the one named, in one database transaction. A credential already
 * in the target state is answered as it is (200, no event); a revoked one gives 409 InvalidState; one
 * issued without a status entry, 400 RevocationNotSupported. The response is the read model
 * (Credentials_Get) of the copy named.
 */
export async function changeSuspension(
  deps: Pick<AppDeps, "database" | "config" | "caches" | "metrics">,
  db: UnitOfWork,
  principal: Principal,
  credentialId: string,
  change: StatusChange,
) {
  const scope = scopeOf({ principal });
  const row = await credentialRepository.findVisible(db, scope, principal.issuerId, credentialId);
  if (!row) throw notFound("The credential");
  if (row.status === "revoked") throw revokedIsFinal(change);
  if (row.statusListId === null || row.statusIndex === null) {
    throw new DomainError(
      "RevocationNotSupported",
      `This credential was issued without a status entry (statusEnabled is false), so it cannot be ${verb(change)}.`,
    );
  }
  const configuration = await configurationCatalog.configurationById(
    deps.database.root,
    deps.caches,
    row.configurationId,
  );
  if (!configuration) throw new Error(`configuration ${row.configurationId} of ${row.id} is missing`);
  if (row.copies > 1) {
    await db.transaction(async (tx) => {
      await issuanceRepository.lockBatch(tx, row.transactionId);
      // Every copy still in the `from` state, in one order (list, index), as revocation locks them.
      const copies = await credentialRepository.issuedCopies(tx, row.transactionId, [change.from]);
      for (const copy of copies) await changeCopy(deps, tx, copy, configuration.identifier, change);
    });
  } else if (row.status === change.from) {
    await changeCopy(deps, db, row, configuration.identifier, change);
  }
  // The state left behind (a concurrent revocation may have got there first: then it is final).
  const after = await credentialRepository.readVisible(db, scope, principal.issuerId, credentialId);
  if (!after) throw notFound("The credential");
  if (after.status === "revoked") throw revokedIsFinal(change);
  return toCredential(deps.config, after, new Date());
}

/** One copy's status change, counted in the metrics once it commits (null: it was no longer `from`). */
async function changeCopy(
  deps: Pick<AppDeps, "metrics">,
  db: UnitOfWork,
  row: CredentialRow,
  configurationIdentifier: string,
  change: StatusChange,
) {
  const changed = await credentialRepository.changeStatus(db, row, configurationIdentifier, change);
  if (changed) db.afterCommit(() => deps.metrics.credentialStatusChanged(verb(change)));
  return changed;
}
