import type { TCreateVerificationPolicyRequest, TPolicyRules } from "@cred/contracts/verification-policies";
import { isUniqueViolation, type UnitOfWork } from "@cred/db";
import type { CoreConfig } from "../shared/context";
import { DomainError, type ErrorDetail } from "../shared/errors";
import { newId } from "../shared/ids";
import { assertPublicHttpsUrl, UrlPolicyViolation } from "../shared/network-policy";
import type { TenantScope } from "../shared/principal";
import { trustSourceRepository } from "../trust-sources";
import { loadVerificationPolicyDto } from "./verification-policy-dto";
import { verificationPolicyRepository as repo } from "./verification-policy-repository";

/**
 * Checks what the schema cannot: credential types known in this environment (unless the credential
 * trusts an external issuer), platform issuers that exist here, external JWKS URLs that are public.
 */
export async function checkReferences(
  db: UnitOfWork,
  scope: TenantScope,
  config: Pick<CoreConfig, "developmentMode">,
  rules: TPolicyRules,
): Promise<ErrorDetail[]> {
  const details: ErrorDetail[] = [];
  const [knownTypes, knownIssuers, knownTrustSources, knownRegistrations, knownRelyingParty] =
    await Promise.all([
      repo.knownCredentialTypes(db, scope, [...new Set(rules.credentials.flatMap((c) => c.credentialTypes))]),
      repo.existingIssuerIds(db, scope, [
        ...new Set(
          rules.credentials.flatMap((c) =>
            c.trustedIssuers.flatMap((t) => ("issuerId" in t ? [t.issuerId] : [])),
          ),
        ),
      ]),
      trustSourceRepository.existingIds(db, scope, [
        ...new Set(
          rules.credentials.flatMap((c) =>
            c.trustedIssuers.flatMap((t) => ("trustSourceId" in t ? [t.trustSourceId] : [])),
          ),
        ),
      ]),
      repo.existingRegistrationCertificateIds(db, scope, rules.registrationCertificateIds ?? []),
      repo.relyingPartyExists(db, scope, rules.relyingPartyId),
    ]);
  if (rules.relyingPartyId && !knownRelyingParty)
    details.push({
      code: "UnknownRelyingParty",
      target: "relyingPartyId",
      message: `No relying party '${rules.relyingPartyId}' exists in this environment (RelyingParties_Create).`,
    });
  for (const [i, id] of (rules.registrationCertificateIds ?? []).entries()) {
    if (!knownRegistrations.has(id)) {
      details.push({
        code: "UnknownRegistrationCertificate",
        target: `registrationCertificateIds.${i}`,
        message: `No registration certificate '${id}' exists in this environment (VerifierRegistrationCertificates_Add).`,
      });
      continue;
    }
    // A policy carries its relying party's registrations only: another's would name another party.
    const owner = knownRegistrations.get(id) ?? null;
    if (owner === (rules.relyingPartyId ?? null)) continue;
    details.push({
      code: "RegistrationCertificateOfAnotherRelyingParty",
      target: `registrationCertificateIds.${i}`,
      message: owner
        ? `The registration certificate '${id}' is relying party '${owner}''s, not ${rules.relyingPartyId ? `'${rules.relyingPartyId}''s` : "this tenant's own (name its relying party in relyingPartyId)"}.`
        : `The registration certificate '${id}' is this tenant's own, not relying party '${rules.relyingPartyId}''s.`,
    });
  }

  for (const [i, credential] of rules.credentials.entries()) {
    const external = credential.trustedIssuers.some((t) => !("issuerId" in t));
    if (!external) {
      for (const [j, type] of credential.credentialTypes.entries()) {
        if (knownTypes.has(type)) continue;
        details.push({
          code: "UnknownCredentialType",
          target: `credentials.${i}.credentialTypes.${j}`,
          message: `No credential configuration in this environment has the credential type '${type}'; create one, or trust an external issuer (jwksUri, credentialIssuer, x5cRoot or trustSourceId) for this credential.`,
        });
      }
    }
    for (const [j, trusted] of credential.trustedIssuers.entries()) {
      if ("issuerId" in trusted && !knownIssuers.has(trusted.issuerId)) {
        details.push({
          code: "UnknownIssuer",
          target: `credentials.${i}.trustedIssuers.${j}.issuerId`,
          message: `No issuer '${trusted.issuerId}' exists in this environment.`,
        });
      }
      if ("trustSourceId" in trusted && !knownTrustSources.has(trusted.trustSourceId)) {
        details.push({
          code: "UnknownTrustSource",
          target: `credentials.${i}.trustedIssuers.${j}.trustSourceId`,
          message: `No trust source '${trusted.trustSourceId}' exists in this environment.`,
        });
      }
      const url =
        "jwksUri" in trusted
          ? trusted.jwksUri
          : "credentialIssuer" in trusted
            ? trusted.credentialIssuer
            : null;
      if (url !== null) {
        try {
          // Static check now; the fetch re-checks at request time with resolution.
          await assertPublicHttpsUrl(url, {
            allowLoopbackHttp: config.developmentMode,
            resolveHostnames: false,
          });
        } catch (error) {
          if (!(error instanceof UrlPolicyViolation)) throw error;
          details.push({
            code: "UrlNotAllowed",
            target: `credentials.${i}.trustedIssuers.${j}.${"jwksUri" in trusted ? "jwksUri" : "credentialIssuer"}`,
            message: error.message,
          });
        }
      }
    }
  }
  return details;
}

export async function createVerificationPolicy(
  db: UnitOfWork,
  scope: TenantScope,
  config: Pick<CoreConfig, "developmentMode">,
  input: TCreateVerificationPolicyRequest,
) {
  const rules: TPolicyRules = {
    credentials: input.credentials,
    credentialSets: input.credentialSets,
    responseMode: input.responseMode,
    dcApi: input.dcApi,
    sessionLifetimeSeconds: input.sessionLifetimeSeconds,
    clientIdPrefix: input.clientIdPrefix,
    didMethod: input.didMethod,
    sameDeviceRedirectUri: input.sameDeviceRedirectUri,
    requireResponseCode: input.requireResponseCode,
    reportInvalidPresentationsToWallet: input.reportInvalidPresentationsToWallet,
    verifierInfo: input.verifierInfo,
    ...(input.relyingPartyId ? { relyingPartyId: input.relyingPartyId } : {}),
    ...(input.registrationCertificateIds
      ? { registrationCertificateIds: input.registrationCertificateIds }
      : {}),
  };
  const details = await checkReferences(db, scope, config, rules);
  if (details.length > 0) {
    throw new DomainError("ValidationFailed", "The policy rules are not valid; see details.", details);
  }
  try {
    return await db.transaction(async (tx) => {
      const row = await repo.create(tx, {
        id: newId("vpol"),
        ...scope,
        identifier: input.identifier,
        displayName: input.displayName,
        purpose: input.purpose ?? null,
        status: "active",
        rules: rules as object,
        activeVersion: 1,
      });
      await repo.addVersion(tx, {
        id: newId("vpv"),
        policyId: row.id,
        version: 1,
        status: "active",
        displayName: row.displayName,
        purpose: row.purpose,
        rules: rules as object,
        reason: null,
        activatedAt: row.createdAt,
        createdAt: row.createdAt,
      });
      return loadVerificationPolicyDto(tx, row);
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new DomainError(
        "AlreadyExists",
        `A verification policy with identifier '${input.identifier}' already exists.`,
        [{ code: "Duplicate", target: "identifier", message: "Choose another identifier." }],
      );
    }
    throw error;
  }
}
