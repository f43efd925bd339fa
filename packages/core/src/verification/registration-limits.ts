import type { TPolicyRules } from "@cred/contracts/verification-policies";
import type { UnitOfWork } from "@cred/db";
import { type DcqlQuery, REGISTRATION_CERTIFICATE_FORMAT, registrationExcesses } from "@cred/oid4vc";
import { DomainError } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import { verificationRepository } from "./verification-repository";
import {
  toVerifierRegistration,
  type VerifierIdentity,
  type VerifierRegistration,
} from "./verifier-identity";

/** A registration certificate a verification is checked against, with where an error about it points. */
export interface AppliedRegistration {
  registration: VerifierRegistration;
  /** `registrationCertificate` for the environment's default one, `registrationCertificateIds.<i>` for a named one. */
  target: string;
  /**
   * Held for a relying party this tenant acts for (the policy's `relyingPartyId`): its `act.sub` must
   * then be the access certificate's organizationIdentifier, not merely its `sub` or `act.sub`.
   */
  intermediated?: boolean;
}

/**
 * The registration certificates a verification under `rules` is checked against and carries: those the
 * policy names in `registrationCertificateIds` (each must still exist: 409 NotRegistered
 * `RegistrationCertificateRemoved` otherwise), or, when it names none, the environment's default one if
 * any (docs/api/relying-party-certificates.md).
 */
export async function registrationsFor(
  db: UnitOfWork,
  scope: TenantScope,
  rules: TPolicyRules,
  identity: VerifierIdentity,
): Promise<AppliedRegistration[]> {
  const ids = rules.registrationCertificateIds;
  if (rules.relyingPartyId) return relyingPartyRegistrations(db, scope, rules.relyingPartyId, ids);
  if (!ids?.length) {
    return identity.registration
      ? [{ registration: identity.registration, target: "registrationCertificate" }]
      : [];
  }
  const rows = await verificationRepository.findVerifierRegistrationCertificatesByIds(db, scope, ids);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const missing = ids.flatMap((id, i) => (byId.has(id) ? [] : [{ id, i }]));
  if (missing.length)
    throw new DomainError(
      "NotRegistered",
      "A registration certificate the policy names was removed; wallets need it to accept the request. Add one (VerifierRegistrationCertificates_Add) and name it in a new policy version.",
      missing.map(({ id, i }) => ({
        code: "RegistrationCertificateRemoved",
        target: `policy.registrationCertificateIds[${i}]`,
        message: `no registration certificate '${id}' exists in this environment`,
      })),
    );
  return ids.map((id, i) => ({
    registration: toVerifierRegistration(byId.get(id)!),
    target: `policy.registrationCertificateIds[${i}]`,
  }));
}

/**
 * The registration certificates of the relying party a policy names (`relyingPartyId`): those of
 * `registrationCertificateIds` (each must still exist and be the relying party's), or all of its own.
 * A removed relying party, or one without a registration certificate, is 409 NotRegistered: the request
 * would name only the intermediary, and wallets could not show who asks.
 */
async function relyingPartyRegistrations(
  db: UnitOfWork,
  scope: TenantScope,
  relyingPartyId: string,
  ids: readonly string[] | undefined,
): Promise<AppliedRegistration[]> {
  const target = "policy.relyingPartyId";
  if (!(await verificationRepository.findRelyingParty(db, scope, relyingPartyId)))
    throw new DomainError(
      "NotRegistered",
      "The relying party the policy names was deleted; create a new policy version naming another.",
      [{ code: "RelyingPartyRemoved", target, message: `no relying party '${relyingPartyId}' exists` }],
    );
  const own = await verificationRepository.findRegistrationCertificatesOfRelyingParty(
    db,
    scope,
    relyingPartyId,
  );
  if (!ids?.length) {
    if (own.length === 0)
      throw new DomainError(
        "NotRegistered",
        "The relying party has no registration certificate, so the request could not name it to the wallet. Add one (RelyingParties_AddRegistrationCertificate).",
        [{ code: "NoRegistrationCertificate", target, message: "the relying party has none" }],
      );
    return own.map((row) => ({
      registration: toVerifierRegistration(row),
      target: `relyingParty.registrationCertificates[${row.id}]`,
      intermediated: true,
    }));
  }
  const byId = new Map(own.map((row) => [row.id, row]));
  const missing = ids.flatMap((id, i) => (byId.has(id) ? [] : [{ id, i }]));
  if (missing.length)
    throw new DomainError(
      "NotRegistered",
      "A registration certificate the policy names was removed, or is not the relying party's; wallets need it to accept the request. Add one (RelyingParties_AddRegistrationCertificate) and name it in a new policy version.",
      missing.map(({ id, i }) => ({
        code: "RegistrationCertificateRemoved",
        target: `policy.registrationCertificateIds[${i}]`,
        message: `the relying party has no registration certificate '${id}'`,
      })),
    );
  return ids.map((id, i) => ({
    registration: toVerifierRegistration(byId.get(id)!),
    target: `policy.registrationCertificateIds[${i}]`,
    intermediated: true,
  }));
}

/**
 * Refuses a verification the relying party's registration certificates (WRPRC, ETSI TS 119 475) do not
 * cover, before any session exists: an expired registration, an access certificate that is no longer
 * the registered relying party's or its intermediary's (409 `VerifierCertificateMismatch`), and a DCQL
 * credential query that no registration lists with every type and claim it asks (409 `NotRegistered`,
 * one detail per credential type or claim, as the first registration reports it). Without registration
 * certificates nothing is limited.
 */
export function assertWithinRegistrations(
  identity: VerifierIdentity,
  applied: readonly AppliedRegistration[],
  query: DcqlQuery,
  now = new Date(),
) {
  if (applied.length === 0) return;
  const ids = new Set(identity.organisationIdentifiers);
  for (const { registration, target, intermediated } of applied) {
    if (registration.expiresAt && registration.expiresAt.getTime() <= now.getTime())
      throw new DomainError(
        "NotRegistered",
        `The registration certificate expired at ${registration.expiresAt.toISOString()}; wallets refuse requests that carry it. Upload a current one (VerifierRegistrationCertificates_Upload or _Add) or remove it.`,
        [{ code: "RegistrationExpired", target, message: "exp is in the past" }],
      );
    const named = (
      intermediated
        ? registration.intermediaryIds
        : [...registration.subjectIds, ...registration.intermediaryIds]
    ).some((id) => ids.has(id));
    if (!named)
      throw new DomainError(
        "VerifierCertificateMismatch",
        `The verifier certificate (organizationIdentifier ${identity.organisationIdentifiers.join(", ") || "none"}) is neither the registered relying party's nor its intermediary's; wallets would refuse the request. Import the access certificate the registration names.`,
        [
          {
            code: "RegistrationSubjectMismatch",
            target,
            message: "no identifier of sub or act.sub is the access certificate's organizationIdentifier",
          },
        ],
      );
  }
  const perRegistration = applied.map(({ registration }) => registrationExcesses(registration, query));
  // A credential query is covered when one registration lists it with every type and claim it asks.
  const uncovered = new Set(
    query.credentials
      .map((credential) => credential.id)
      .filter((id) => perRegistration.every((excesses) => excesses.some((e) => e.credentialId === id))),
  );
  const excesses = perRegistration[0]!.filter((e) => uncovered.has(e.credentialId));
  if (excesses.length)
    throw new DomainError(
      "NotRegistered",
      "The policy asks for more than the relying party's registration certificate registers (ETSI TS 119 475); wallets refuse such requests. Ask only for registered credentials and claims, or register them.",
      excesses.map((e) => ({
        code: e.path === null ? "UnregisteredCredential" : "UnregisteredClaim",
        target:
          e.path === null
            ? `policy.credentials[${e.credentialId}]`
            : `policy.credentials[${e.credentialId}].claims[${JSON.stringify(e.path)}]`,
        message: e.message,
      })),
    );
}

/**
 * The session's rules snapshot with the registration certificates added to `verifierInfo` as
 * `{ format: "registration_cert", data: <JWT> }` (OpenID4VP 1.0 §5.1 `verifier_info`), so every request
 * object of the session (request_uri and DC API) carries the registrations it was checked against.
 */
export function rulesWithRegistrations(
  rules: TPolicyRules,
  applied: readonly AppliedRegistration[],
): TPolicyRules {
  if (applied.length === 0) return rules;
  return {
    ...rules,
    verifierInfo: [
      ...applied.map(({ registration }) => ({
        format: REGISTRATION_CERTIFICATE_FORMAT,
        data: registration.jwt,
      })),
      ...(rules.verifierInfo ?? []),
    ],
  };
}
