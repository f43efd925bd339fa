import type { ListQuery } from "@cred/contracts/pagination";
import type {
  TCreateRelyingPartyRequest,
  TRelyingParty,
  TUpdateRelyingPartyRequest,
} from "@cred/contracts/relying-parties";
import type { UnitOfWork } from "@cred/db";
import { DomainError, notFound } from "../shared/errors";
import { newId } from "../shared/ids";
import { decodeCursor, toPage } from "../shared/pagination";
import type { TenantScope } from "../shared/principal";
import {
  type RelyingPartyData,
  type RelyingPartyRow,
  relyingPartyRepository as repo,
} from "./relying-party-repository";

export function toRelyingPartyDto(row: RelyingPartyRow): TRelyingParty {
  return {
    id: row.id,
    name: row.name,
    legalName: row.legalName,
    identifiers: row.identifiers,
    country: row.country,
    infoUri: row.infoUri,
    privacyPolicyUri: row.privacyPolicyUri,
    registryUri: row.registryUri,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** 409 AlreadyExists when another relying party of the environment has one of the identifiers. */
async function assertIdentifiersFree(
  db: UnitOfWork,
  scope: TenantScope,
  identifiers: string[],
  exceptId?: string,
) {
  const other = await repo.findWithIdentifier(db, scope, identifiers, exceptId);
  if (!other) return;
  const shared = identifiers.filter((id) => other.identifiers.includes(id));
  throw new DomainError(
    "AlreadyExists",
    `Relying party '${other.id}' already has the identifier ${shared.join(", ")}: an identifier names one relying party.`,
    shared.map((id) => ({
      code: "Duplicate",
      target: `identifiers.${identifiers.indexOf(id)}`,
      message: `'${id}' is relying party '${other.id}''s.`,
    })),
  );
}

export async function createRelyingParty(
  db: UnitOfWork,
  scope: TenantScope,
  input: TCreateRelyingPartyRequest,
): Promise<TRelyingParty> {
  return db.transaction(async (tx) => {
    await assertIdentifiersFree(tx, scope, input.identifiers);
    const row = await repo.create(tx, scope, {
      id: newId("rp"),
      name: input.name,
      legalName: input.legalName ?? null,
      identifiers: input.identifiers,
      country: input.country ?? null,
      infoUri: input.infoUri ?? null,
      privacyPolicyUri: input.privacyPolicyUri ?? null,
      registryUri: input.registryUri ?? null,
    });
    return toRelyingPartyDto(row);
  });
}

export async function getRelyingParty(db: UnitOfWork, scope: TenantScope, id: string) {
  const row = await repo.findById(db, scope, id);
  if (!row) throw notFound("The relying party");
  return toRelyingPartyDto(row);
}

export async function listRelyingParties(db: UnitOfWork, scope: TenantScope, query: ListQuery) {
  const rows = await repo.list(db, scope, { afterId: decodeCursor(query.cursor), take: query.limit + 1 });
  return toPage(rows, query.limit, toRelyingPartyDto);
}

/**
 * JSON merge patch of a relying party. New identifiers must stay free (409 AlreadyExists) and still
 * name the `sub` of every registration certificate held for it (409 InvalidState otherwise): a
 * registration of someone else must not become this party's.
 */
export async function updateRelyingParty(
  db: UnitOfWork,
  scope: TenantScope,
  input: TUpdateRelyingPartyRequest,
): Promise<TRelyingParty> {
  const { relyingPartyId: id, ...patch } = input;
  const changes: Partial<RelyingPartyData> = {};
  for (const [key, value] of Object.entries(patch) as [keyof RelyingPartyData, unknown][]) {
    if (value !== undefined) (changes as Record<string, unknown>)[key] = value;
  }
  return db.transaction(async (tx) => {
    const current = await repo.findById(tx, scope, id);
    if (!current) throw notFound("The relying party");
    if (changes.identifiers) {
      await assertIdentifiersFree(tx, scope, changes.identifiers, id);
      const next = changes.identifiers;
      const orphaned = (await repo.registrationSubjects(tx, scope, id)).filter(
        (certificate) => !certificate.subjectIds.some((s) => next.includes(s)),
      );
      if (orphaned.length)
        throw new DomainError(
          "InvalidState",
          "The new identifiers would not name the relying party's registration certificates; keep the identifier their sub names, or remove them first.",
          orphaned.map((c) => ({
            code: "RegistrationCertificateMismatch",
            target: "identifiers",
            message: `registration certificate '${c.id}' names ${c.subjectIds.join(", ")}`,
          })),
        );
    }
    const row = Object.keys(changes).length ? await repo.update(tx, scope, id, changes) : current;
    if (!row) throw notFound("The relying party");
    return toRelyingPartyDto(row);
  });
}

/**
 * Deletes a relying party with the registration certificates held for it. 409 InvalidState
 * (`RelyingPartyInUse`, naming the policies) while the active version of a verification policy names it:
 * its verifications would name a party that is gone.
 */
export async function deleteRelyingParty(db: UnitOfWork, scope: TenantScope, id: string) {
  return db.transaction(async (tx) => {
    const row = await repo.findById(tx, scope, id);
    if (!row) throw notFound("The relying party");
    const policies = await repo.policiesNaming(tx, scope, id);
    if (policies.length)
      throw new DomainError(
        "InvalidState",
        `Verification policies name this relying party (${policies.join(", ")}); give them a version naming another, or none, first.`,
        policies.map((identifier) => ({
          code: "RelyingPartyInUse",
          target: "relyingPartyId",
          message: `verification policy '${identifier}' names it in its active version`,
        })),
      );
    if (!(await repo.delete(tx, scope, id))) throw notFound("The relying party");
    return toRelyingPartyDto(row);
  });
}
