import {
  ORGANISATION_READ_ONLY_FIELDS,
  type TUpdateOrganisationRequest,
  type zOrganisation,
} from "@cred/contracts/organisations";
import type { UnitOfWork } from "@cred/db";
import type { z } from "zod";
import { DomainError, notFound } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import { organisationRepository } from "./organisation-repository";
import { toOrganisationDto } from "./organisations";

/**
 * Refuses a patch that names a read-only field of the organisation (400 ReadOnlyField): the reference
 * is the path key and never changes. Runs on the raw body, before the strict schema would report the
 * field as merely unknown.
 */
export function assertNoReadOnlyOrganisationFields(raw: unknown): void {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return;
  const named = ORGANISATION_READ_ONLY_FIELDS.filter((field) => Object.hasOwn(raw, field));
  if (named.length === 0) return;
  throw new DomainError(
    "ReadOnlyField",
    `${named.map((f) => `'${f}'`).join(", ")} ${named.length === 1 ? "is" : "are"} read-only and cannot be changed.`,
    named.map((field) => ({ code: "ReadOnlyField", target: field, message: `'${field}' is read-only.` })),
  );
}

/**
 * JSON merge patch (RFC 7396) of an organisation: an absent member is unchanged, `null` clears an
 * optional member (legalName, country; identifiers become []), `identifiers` is replaced as a whole.
 */
export async function updateOrganisation(
  db: UnitOfWork,
  scope: TenantScope,
  input: TUpdateOrganisationRequest,
): Promise<z.infer<typeof zOrganisation>> {
  const changes: Parameters<typeof organisationRepository.update>[3] = {};
  if (input.displayName !== undefined) changes.displayName = input.displayName;
  if (input.legalName !== undefined) changes.legalName = input.legalName;
  if (input.country !== undefined) changes.country = input.country;
  if (input.identifiers !== undefined) changes.identifiers = input.identifiers ?? [];
  const row =
    Object.keys(changes).length === 0
      ? await organisationRepository.findByReference(db, scope, input.organisationReference)
      : await organisationRepository.update(db, scope, input.organisationReference, changes);
  if (!row) throw notFound("The organisation");
  return toOrganisationDto(row);
}
