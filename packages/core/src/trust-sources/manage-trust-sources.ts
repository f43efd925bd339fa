import type { ListQuery } from "@cred/contracts/pagination";
import {
  TRUST_SOURCE_READ_ONLY_FIELDS,
  type TTrustSource,
  type TUpdateTrustSourceRequest,
} from "@cred/contracts/trust-sources";
import type { UnitOfWork } from "@cred/db";
import { DomainError, notFound } from "../shared/errors";
import { decodeCursor, toPage } from "../shared/pagination";
import type { TenantScope } from "../shared/principal";
import { parseSignerCertificates } from "./create-trust-source";
import { toTrustSourceDto } from "./trust-source-dto";
import { trustSourceRepository as repo } from "./trust-source-repository";

export async function getTrustSource(db: UnitOfWork, scope: TenantScope, id: string): Promise<TTrustSource> {
  const row = await repo.findById(db, scope, id);
  if (!row) throw notFound("The trust source");
  return toTrustSourceDto(row);
}

export async function listTrustSources(db: UnitOfWork, scope: TenantScope, query: ListQuery) {
  const rows = await repo.list(db, scope, { afterId: decodeCursor(query.cursor), take: query.limit + 1 });
  const now = new Date();
  return toPage(rows, query.limit, (row) => toTrustSourceDto(row, now));
}

/** Soft-deletes a trust source; policies naming it trust nothing through it from now on. */
export async function deleteTrustSource(
  db: UnitOfWork,
  scope: TenantScope,
  id: string,
): Promise<TTrustSource> {
  return db.transaction(async (tx) => {
    const row = await repo.findById(tx, scope, id);
    if (!row || !(await repo.softDelete(tx, scope, id, new Date()))) throw notFound("The trust source");
    return toTrustSourceDto(row);
  });
}

/** Refuses a patch that names a read-only member (400 ReadOnlyField): a new URL or kind is a new source. */
export function assertNoReadOnlyTrustSourceFields(raw: unknown): void {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return;
  const named = TRUST_SOURCE_READ_ONLY_FIELDS.filter((field) => Object.hasOwn(raw, field));
  if (named.length === 0) return;
  throw new DomainError(
    "ReadOnlyField",
    `${named.map((f) => `'${f}'`).join(", ")} ${named.length === 1 ? "is" : "are"} read-only; create another trust source for another list.`,
    named.map((field) => ({ code: "ReadOnlyField", target: field, message: `'${field}' is read-only.` })),
  );
}

/**
 * JSON merge patch of a trust source: signer certificates (used from the next refresh on; the last good
 * copy stays), refresh interval, description (null clears it).
 */
export async function updateTrustSource(
  db: UnitOfWork,
  scope: TenantScope,
  input: TUpdateTrustSourceRequest,
): Promise<TTrustSource> {
  const changes: Parameters<typeof repo.update>[3] = {};
  if (input.signerCertificates !== undefined) {
    changes.signerCertificates = parseSignerCertificates(input.signerCertificates);
  }
  if (input.refreshIntervalSeconds !== undefined)
    changes.refreshIntervalSeconds = input.refreshIntervalSeconds;
  if (input.description !== undefined) changes.description = input.description;
  const row =
    Object.keys(changes).length === 0
      ? await repo.findById(db, scope, input.trustSourceId)
      : await repo.update(db, scope, input.trustSourceId, changes);
  if (!row) throw notFound("The trust source");
  return toTrustSourceDto(row);
}
