import type { TIssuer } from "@cred/contracts/issuers";
import type { UnitOfWork } from "@cred/db";
import type { CoreConfig } from "../shared/context";
import type { TenantScope } from "../shared/principal";
import { findVisibleIssuer, type IssuerCaller, scopeOfCaller } from "./issuer-caller";
import { toIssuerDto } from "./issuer-dto";
import { type IssuerRow, issuerRepository } from "./issuer-repository";

/** The DTO of a row, with its organisation's reference. */
export async function loadIssuerDto(
  db: UnitOfWork,
  config: Pick<CoreConfig, "publicBaseUrl">,
  scope: TenantScope,
  row: IssuerRow,
): Promise<TIssuer> {
  const references = await issuerRepository.organisationReferences(db, scope, [row.organisationId]);
  return toIssuerDto(config, row, references.get(row.organisationId)!);
}

export async function getIssuer(
  deps: { db: UnitOfWork; config: CoreConfig },
  caller: IssuerCaller,
  issuerId: string,
): Promise<TIssuer> {
  const row = await findVisibleIssuer(deps.db, caller, issuerId);
  return loadIssuerDto(deps.db, deps.config, scopeOfCaller(caller), row);
}
