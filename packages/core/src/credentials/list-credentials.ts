import type { TListCredentialsRequest } from "@cred/contracts/credentials";
import type { UnitOfWork } from "@cred/db";
import type { AppDeps } from "../shared/context";
import { decodeCursor, toPage } from "../shared/pagination";
import type { Principal } from "../shared/principal";
import { scopeOf } from "../shared/scope-of";
import { toCredential } from "./credential-dto";
import { credentialRepository } from "./credential-repository";

/**
 * Credentials_List: the caller's credentials (an issuer-bound key: its issuer's), newest first, in pages
 * keyed by the last id of the page before (ids are time-ordered). `status=expired` and the others are
 * judged at one instant, the one each item's `status` is derived at.
 */
export async function listCredentials(
  deps: Pick<AppDeps, "config">,
  db: UnitOfWork,
  principal: Principal,
  input: TListCredentialsRequest,
) {
  const now = new Date();
  const rows = await credentialRepository.list(
    db,
    scopeOf({ principal }),
    principal.issuerId,
    {
      state: input.status,
      credentialConfiguration: input.credentialConfiguration,
      issuerId: input.issuerId,
      transactionId: input.transactionId,
      externalSubjectReference: input.externalSubjectReference,
      issuedFrom: input.issuedFrom !== undefined ? new Date(input.issuedFrom) : undefined,
      issuedTo: input.issuedTo !== undefined ? new Date(input.issuedTo) : undefined,
    },
    { beforeId: decodeCursor(input.cursor), take: input.limit + 1, now },
  );
  return toPage(rows, input.limit, (row) => toCredential(deps.config, row, now));
}
