import type { TListCredentialConfigurationsRequest } from "@cred/contracts/credential-configurations";
import type { UnitOfWork } from "@cred/db";
import { type IssuerCaller, scopeOfCaller } from "../issuers";
import { decodeCursor, toPage } from "../shared/pagination";
import { toCredentialConfigurationDto } from "./credential-configuration-dto";
import { credentialConfigurationRepository } from "./credential-configuration-repository";

/**
 * Configurations in id (= creation) order, optionally those granted to one issuer. Issuer-client
 * keys see only their issuer's configurations.
 */
export async function listCredentialConfigurations(
  deps: { db: UnitOfWork },
  caller: IssuerCaller,
  query: TListCredentialConfigurationsRequest,
) {
  const afterId = decodeCursor(query.cursor);
  if (
    caller.boundIssuerId !== null &&
    query.issuerId !== undefined &&
    query.issuerId !== caller.boundIssuerId
  ) {
    return { data: [], nextCursor: null };
  }
  const issuerId = caller.boundIssuerId ?? query.issuerId;
  const rows = await credentialConfigurationRepository.list(
    deps.db,
    scopeOfCaller(caller),
    { issuerId },
    { afterId, take: query.limit + 1 },
  );
  const page = rows.slice(0, query.limit);
  const versions = await credentialConfigurationRepository.versionsOf(
    deps.db,
    page.map((row) => row.id),
  );
  return toPage(rows, query.limit, (row) => toCredentialConfigurationDto(row, versions.get(row.id) ?? []));
}
