import type { ListQuery } from "@cred/contracts/pagination";
import type {
  TUploadVerifierRegistrationCertificateRequest,
  TVerifierRegistrationCertificate,
} from "@cred/contracts/verifier-certificates";
import type { UnitOfWork } from "@cred/db";
import {
  InvalidRegistrationCertificateError,
  organisationIdentifiersOf,
  type ParsedRegistrationCertificate,
  parseRegistrationCertificate,
  splitPemCertificates,
} from "@cred/oid4vc";
import type { AppDeps } from "../shared/context";
import { DomainError, notFound } from "../shared/errors";
import { newId } from "../shared/ids";
import { decodeCursor, toPage } from "../shared/pagination";
import type { TenantScope } from "../shared/principal";
import { ensureVerifierCertificate } from "../verification";
import { verifierCertificateRepository as repo } from "./verifier-certificate-repository";

type Registration = Pick<
  ParsedRegistrationCertificate,
  "name" | "subjectIds" | "intermediaryIds" | "intermediaryName" | "credentials" | "registrar"
>;
type RegistrationRow = NonNullable<Awaited<ReturnType<typeof repo.findRegistration>>>;

function toDto(row: RegistrationRow): TVerifierRegistrationCertificate {
  const r = row.registration as unknown as Registration;
  return {
    id: row.id,
    default: row.defaultKey !== null,
    relyingPartyId: row.relyingPartyId,
    registrationCertificate: row.jwt,
    name: r.name,
    subjectIds: r.subjectIds,
    intermediary: r.intermediaryIds.length ? { ids: r.intermediaryIds, name: r.intermediaryName } : null,
    credentials: r.credentials,
    registrar: r.registrar,
    issuedAt: row.issuedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * Installs the relying party's registration certificate (WRPRC, ETSI TS 119 475, JWT): verified
 * (`typ`, signature by its `x5c` leaf, that chain validated to `trustAnchorPem`, `iat`/`nbf`/`exp`) and
 * tied to this verifier: its `sub` must be the access certificate's organizationIdentifier (the relying
 * party acting itself) or its `act.sub` must (an intermediary acting on the relying party's behalf).
 * 400 `InvalidCertificate` with one detail per problem; 409 `InvalidState` while the verifier
 * certificate has no organizationIdentifier (import an access certificate first). From then on every
 * new verification is checked against it and carries it in `verifier_info`.
 */
export async function uploadVerifierRegistrationCertificate(
  deps: AppDeps,
  scope: TenantScope,
  input: TUploadVerifierRegistrationCertificateRequest,
): Promise<TVerifierRegistrationCertificate> {
  const db = deps.database.root;
  const { organisationIds: _ids, ...checked } = await checkRegistrationCertificate(deps, db, scope, input);
  const row = await repo.replaceRegistration(db, deps.caches, scope, {
    id: newId("vreg"),
    ...checked,
  });
  return toDto(row);
}

/**
 * VerifierRegistrationCertificates_Add: the same checks as Upload, but the certificate is kept beside the
 * default one under an id of its own, for verification policies to name (`registrationCertificateIds`):
 * one per policy, or one per relying party an intermediary acts for. The verifier certificate is read
 * (on first use, generated) and the certificate stored through `db`, the operation's unit of work: under
 * an Idempotency-Key the row commits with the recorded answer, so a retry is answered the same id.
 */
export async function addVerifierRegistrationCertificate(
  deps: AppDeps,
  db: UnitOfWork,
  scope: TenantScope,
  input: TUploadVerifierRegistrationCertificateRequest,
): Promise<TVerifierRegistrationCertificate> {
  const { organisationIds: _ids, ...checked } = await checkRegistrationCertificate(deps, db, scope, input);
  const row = await repo.addRegistration(db, scope, { id: newId("vreg"), ...checked });
  return toDto(row);
}

/**
 * RelyingParties_AddRegistrationCertificate: the checks of Add, and then that the certificate is the
 * relying party's as served by this intermediary: one `sub` identifier is one of the relying party's
 * identifiers, and `act.sub` is the access certificate's organizationIdentifier (ARF RPRC_04, TS 119 475
 * `act`). Otherwise 400 InvalidCertificate (`RelyingPartyMismatch`, `NotIntermediated`), nothing written.
 * Reads and writes through `db`, as Add does.
 */
export async function addRelyingPartyRegistrationCertificate(
  deps: AppDeps,
  db: UnitOfWork,
  scope: TenantScope,
  relyingParty: { id: string; identifiers: readonly string[] },
  input: TUploadVerifierRegistrationCertificateRequest,
): Promise<TVerifierRegistrationCertificate> {
  const checked = await checkRegistrationCertificate(deps, db, scope, input);
  const { registration, organisationIds } = checked;
  const details = [];
  if (!registration.subjectIds.some((id) => relyingParty.identifiers.includes(id)))
    details.push({
      code: "RelyingPartyMismatch",
      target: "registrationCertificate",
      message: `sub (${registration.subjectIds.join(", ")}) names none of the relying party's identifiers (${relyingParty.identifiers.join(", ")})`,
    });
  if (!registration.intermediaryIds.some((id) => organisationIds.includes(id)))
    details.push({
      code: "NotIntermediated",
      target: "registrationCertificate",
      message: `act.sub (${registration.intermediaryIds.join(", ") || "absent"}) is not this intermediary's organizationIdentifier (${organisationIds.join(", ")}): the registration must name the intermediary acting for the relying party`,
    });
  if (details.length)
    throw new DomainError(
      "InvalidCertificate",
      "The registration certificate is not this relying party's as served by this intermediary.",
      details,
    );
  const { organisationIds: _ids, ...data } = checked;
  const row = await repo.addRegistration(db, scope, {
    id: newId("vreg"),
    ...data,
    relyingPartyId: relyingParty.id,
  });
  return toDto(row);
}

/** A relying party's registration certificates (RelyingParties_ListRegistrationCertificates). */
export async function listRelyingPartyRegistrationCertificates(
  deps: AppDeps,
  scope: TenantScope,
  relyingPartyId: string,
  query: ListQuery,
) {
  const rows = await repo.listRegistrations(deps.database.root, scope, {
    afterId: decodeCursor(query.cursor),
    take: query.limit + 1,
    relyingPartyId,
  });
  return toPage(rows, query.limit, toDto);
}

async function checkRegistrationCertificate(
  deps: AppDeps,
  db: UnitOfWork,
  scope: TenantScope,
  input: TUploadVerifierRegistrationCertificateRequest,
) {
  const certificate = await ensureVerifierCertificate(deps, scope, db);
  const leafPem = splitPemCertificates(certificate.chainPem)[0]!;
  const organisationIds = organisationIdentifiersOf(leafPem);
  if (organisationIds.length === 0)
    throw new DomainError(
      "InvalidState",
      "The verifier certificate has no organizationIdentifier, so no registration certificate can name it: import an access certificate first (VerifierCertificates_CreateSigningRequest, VerifierCertificates_ImportAccessCertificate).",
    );
  let parsed: ParsedRegistrationCertificate;
  try {
    parsed = await parseRegistrationCertificate({
      jwt: input.registrationCertificate,
      trustAnchorPem: input.trustAnchorPem,
    });
  } catch (error) {
    if (!(error instanceof InvalidRegistrationCertificateError)) throw error;
    throw new DomainError(
      "InvalidCertificate",
      "The registration certificate cannot be used; see details.",
      error.issues.map((message) => ({
        code: "InvalidCertificate",
        target: /trustAnchorPem|trust anchor/.test(message) ? "trustAnchorPem" : "registrationCertificate",
        message,
      })),
    );
  }
  const own = new Set(organisationIds);
  const asRelyingParty = parsed.subjectIds.some((id) => own.has(id));
  const asIntermediary = parsed.intermediaryIds.some((id) => own.has(id));
  if (!asRelyingParty && !asIntermediary)
    throw new DomainError("InvalidCertificate", "The registration certificate is not this verifier's.", [
      {
        code: "SubjectMismatch",
        target: "registrationCertificate",
        message: `neither sub (${parsed.subjectIds.join(", ")}) nor act.sub (${parsed.intermediaryIds.join(", ") || "absent"}) is the access certificate's organizationIdentifier (${organisationIds.join(", ")})`,
      },
    ]);
  const registration: Registration = {
    name: parsed.name,
    subjectIds: parsed.subjectIds,
    intermediaryIds: parsed.intermediaryIds,
    intermediaryName: parsed.intermediaryName,
    credentials: parsed.credentials,
    registrar: parsed.registrar,
  };
  return {
    jwt: parsed.jwt,
    trustAnchorPem: input.trustAnchorPem,
    registration,
    issuedAt: parsed.issuedAt,
    expiresAt: parsed.expiresAt,
    organisationIds,
  };
}

/** The registration certificate of the caller's environment; 404 when none was uploaded. */
export async function getVerifierRegistrationCertificate(deps: AppDeps, scope: TenantScope) {
  const row = await repo.findRegistration(deps.database.root, scope);
  if (!row)
    throw new DomainError("NotFound", "No registration certificate was uploaded for this environment.");
  return toDto(row);
}

/** Removes the registration certificate (404 when none): verifications are no longer limited by it. */
export async function deleteVerifierRegistrationCertificate(deps: AppDeps, scope: TenantScope) {
  const row = await repo.findRegistration(deps.database.root, scope);
  if (!row || !(await repo.deleteRegistration(deps.database.root, deps.caches, scope)))
    throw new DomainError("NotFound", "No registration certificate was uploaded for this environment.");
  return toDto(row);
}

/** VerifierRegistrationCertificates_List: the environment's registration certificates, default one too. */
export async function listVerifierRegistrationCertificates(
  deps: AppDeps,
  scope: TenantScope,
  query: ListQuery,
) {
  const rows = await repo.listRegistrations(deps.database.root, scope, {
    afterId: decodeCursor(query.cursor),
    take: query.limit + 1,
  });
  return toPage(rows, query.limit, toDto);
}

/** VerifierRegistrationCertificates_GetById; 404 for an unknown or foreign id. */
export async function getVerifierRegistrationCertificateById(deps: AppDeps, scope: TenantScope, id: string) {
  const row = await repo.findRegistrationById(deps.database.root, scope, id);
  if (!row) throw notFound("The registration certificate");
  return toDto(row);
}

/**
 * VerifierRegistrationCertificates_Remove: removes one by id (the default one too); 404 for an unknown or
 * foreign id. Policies naming it are refused at Verifications_Create from then on (409 NotRegistered).
 */
export async function removeVerifierRegistrationCertificate(deps: AppDeps, scope: TenantScope, id: string) {
  const db = deps.database.root;
  const row = await repo.findRegistrationById(db, scope, id);
  if (!row || !(await repo.deleteRegistrationById(db, deps.caches, scope, id)))
    throw notFound("The registration certificate");
  return toDto(row);
}
