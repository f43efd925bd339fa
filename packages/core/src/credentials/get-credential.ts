import type { UnitOfWork } from "@cred/db";
import type { AppDeps } from "../shared/context";
import { notFound } from "../shared/errors";
import type { Principal } from "../shared/principal";
import { scopeOf } from "../shared/scope-of";
import { toCredential } from "./credential-dto";
import { credentialRepository } from "./credential-repository";

/**
 * Credentials_Get: one credential of the caller's tenant and environment (and, for an issuer-bound key,
 * its issuer); any other reads as absent (404).
 */
export async function getCredential(
  deps: Pick<AppDeps, "config">,
  db: UnitOfWork,
  principal: Principal,
  credentialId: string,
) {
  const row = await credentialRepository.readVisible(
    db,
    scopeOf({ principal }),
    principal.issuerId,
    credentialId,
  );
  if (!row) throw notFound("The credential");
  return toCredential(deps.config, row, new Date());
}
