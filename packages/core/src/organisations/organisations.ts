import type { TCreateOrganisationRequest, zOrganisation } from "@cred/contracts/organisations";
import type { ListQuery } from "@cred/contracts/pagination";
import { isUniqueViolation, type UnitOfWork } from "@cred/db";
import type { z } from "zod";
import { DomainError, notFound } from "../shared/errors";
import { newId } from "../shared/ids";
import { decodeCursor, toPage } from "../shared/pagination";
import type { TenantScope } from "../shared/principal";
import { organisationRepository } from "./organisation-repository";

type OrganisationRow = NonNullable<Awaited<ReturnType<typeof organisationRepository.findById>>>;

export function toOrganisationDto(row: OrganisationRow): z.infer<typeof zOrganisation> {
  return {
    reference: row.reference,
    displayName: row.displayName,
    legalName: row.legalName,
    country: row.country,
    identifiers: row.identifiers as { scheme: string; value: string }[],
    environment: row.environment as "sandbox" | "production",
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export async function createOrganisation(
  db: UnitOfWork,
  scope: TenantScope,
  input: TCreateOrganisationRequest,
) {
  try {
    const row = await organisationRepository.create(db, scope, {
      id: newId("org"),
      reference: input.reference,
      displayName: input.displayName,
      legalName: input.legalName ?? null,
      country: input.country ?? null,
      identifiers: input.identifiers,
    });
    return toOrganisationDto(row);
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new DomainError(
        "AlreadyExists",
        `An organisation with reference '${input.reference}' already exists.`,
        [{ code: "Duplicate", target: "reference", message: "Choose another reference." }],
      );
    }
    throw error;
  }
}

export async function getOrganisation(db: UnitOfWork, scope: TenantScope, reference: string) {
  const row = await organisationRepository.findByReference(db, scope, reference);
  if (!row) throw notFound("The organisation");
  return toOrganisationDto(row);
}

export async function listOrganisations(db: UnitOfWork, scope: TenantScope, query: ListQuery) {
  const rows = await organisationRepository.list(db, scope, {
    afterId: decodeCursor(query.cursor),
    take: query.limit + 1,
  });
  return toPage(rows, query.limit, toOrganisationDto);
}
