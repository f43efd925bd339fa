import type { ListQuery } from "@cred/contracts/pagination";
import type { TAddRelyingPartyRegistrationCertificateRequest } from "@cred/contracts/relying-parties";
import type { UnitOfWork } from "@cred/db";
import type { AppDeps } from "../shared/context";
import { notFound } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import {
  addRelyingPartyRegistrationCertificate,
  listRelyingPartyRegistrationCertificates,
} from "../verifier-certificates";
import { relyingPartyRepository as repo } from "./relying-party-repository";

/**
 * RelyingParties_AddRegistrationCertificate: a registration certificate (WRPRC) the intermediary holds
 * for this relying party; 404 for an unknown or foreign relying party, then the checks of
 * VerifierRegistrationCertificates_Add and those tying it to the party and to this intermediary. Every
 * read and write goes through `db`, the operation's unit of work (an Idempotency-Key's transaction).
 */
export async function addRegistrationCertificateOfRelyingParty(
  deps: AppDeps,
  db: UnitOfWork,
  scope: TenantScope,
  input: TAddRelyingPartyRegistrationCertificateRequest,
) {
  const { relyingPartyId, ...certificate } = input;
  const relyingParty = await repo.findById(db, scope, relyingPartyId);
  if (!relyingParty) throw notFound("The relying party");
  return addRelyingPartyRegistrationCertificate(deps, db, scope, relyingParty, certificate);
}

/** RelyingParties_ListRegistrationCertificates; 404 for an unknown or foreign relying party. */
export async function listRegistrationCertificatesOfRelyingParty(
  deps: AppDeps,
  scope: TenantScope,
  input: ListQuery & { relyingPartyId: string },
) {
  if (!(await repo.findById(deps.database.root, scope, input.relyingPartyId)))
    throw notFound("The relying party");
  return listRelyingPartyRegistrationCertificates(deps, scope, input.relyingPartyId, input);
}
