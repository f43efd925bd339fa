import type { TListIssuersRequest } from "@cred/contracts/issuers";
import type { UnitOfWork } from "@cred/db";
import { organisationRepository } from "../organisations";
import type { CoreConfig } from "../shared/context";
import { decodeCursor, toPage } from "../shared/pagination";
import { type IssuerCaller, scopeOfCaller } from "./issuer-caller";
import { toIssuerDto } from "./issuer-dto";
import { issuerRepository } from "./issuer-repository";

/** Issuers in id (= creation) order; issuer-client keys see only their own issuer. */
export async function listIssuers(
  deps: { db: UnitOfWork; config: CoreConfig },
  caller: IssuerCaller,
  query: TListIssuersRequest,
) {
  const scope = scopeOfCaller(caller);
  const afterId = decodeCursor(query.cursor);
  let organisationId: string | undefined;
  if (query.organisationReference !== undefined) {
    const organisation = await organisationRepository.findByReference(
      deps.db,
      scope,
      query.organisationReference,
    );
    if (!organisation) return { data: [], nextCursor: null };
    organisationId = organisation.id;
  }
  const rows = await issuerRepository.list(
    deps.db,
    scope,
    { id: caller.boundIssuerId ?? undefined, organisationId, status: query.status },
    { afterId, take: query.limit + 1 },
  );
  const references = await issuerRepository.organisationReferences(
    deps.db,
    scope,
    rows.map((row) => row.organisationId),
  );
  return toPage(rows, query.limit, (row) =>
    toIssuerDto(deps.config, row, references.get(row.organisationId)!),
  );
}
