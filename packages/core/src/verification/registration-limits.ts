import type { TPolicyRules } from "@cred/contracts/verification-policies";
import { type DcqlQuery, REGISTRATION_CERTIFICATE_FORMAT, registrationExcesses } from "@cred/oid4vc";
import { DomainError } from "../shared/errors";
import type { VerifierIdentity } from "./verifier-identity";

/**
 * Refuses a verification the relying party's registration certificate (WRPRC, ETSI TS 119 475) does not
 * cover, before any session exists: an expired registration, an access certificate that is no longer
 * the registered relying party's or its intermediary's (409 `VerifierCertificateMismatch`), and a DCQL
 * query asking for a credential type or claim the registration does not list (409 `NotRegistered`, one
 * detail per credential type or claim). Without a registration certificate nothing is limited.
 */
export function assertWithinRegistration(identity: VerifierIdentity, query: DcqlQuery, now = new Date()) {
  const registration = identity.registration;
  if (!registration) return;
  if (registration.expiresAt && registration.expiresAt.getTime() <= now.getTime())
    throw new DomainError(
      "NotRegistered",
      `The registration certificate expired at ${registration.expiresAt.toISOString()}; wallets refuse requests that carry it. Upload a current one (VerifierRegistrationCertificates_Upload) or delete it.`,
      [{ code: "RegistrationExpired", target: "registrationCertificate", message: "exp is in the past" }],
    );
  const ids = new Set(identity.organisationIdentifiers);
  const named = [...registration.subjectIds, ...registration.intermediaryIds].some((id) => ids.has(id));
  if (!named)
    throw new DomainError(
      "VerifierCertificateMismatch",
      `The verifier certificate (organizationIdentifier ${identity.organisationIdentifiers.join(", ") || "none"}) is neither the registered relying party's nor its intermediary's; wallets would refuse the request. Import the access certificate the registration names.`,
      [
        {
          code: "RegistrationSubjectMismatch",
          target: "registrationCertificate",
          message: "no identifier of sub or act.sub is the access certificate's organizationIdentifier",
        },
      ],
    );
  const excesses = registrationExcesses(registration, query);
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
 * The session's rules snapshot with the registration certificate added to `verifierInfo` as
 * `{ format: "registration_cert", data: <JWT> }` (OpenID4VP 1.0 §5.1 `verifier_info`), so every request
 * object of the session (request_uri and DC API) carries the registration it was checked against.
 */
export function rulesWithRegistration(rules: TPolicyRules, identity: VerifierIdentity): TPolicyRules {
  if (!identity.registration) return rules;
  return {
    ...rules,
    verifierInfo: [
      { format: REGISTRATION_CERTIFICATE_FORMAT, data: identity.registration.jwt },
      ...(rules.verifierInfo ?? []),
    ],
  };
}
