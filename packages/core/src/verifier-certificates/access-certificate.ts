import { X509Certificate } from "node:crypto";
import type {
  TCreateVerifierCertificateSigningRequestRequest,
  TImportVerifierAccessCertificateRequest,
  TVerifierCertificateSigningRequest,
} from "@cred/contracts/verifier-certificates";
import type { UnitOfWork } from "@cred/db";
import {
  createAccessCertificateRequest,
  type Jwk,
  organisationIdentifiersOf,
  splitPemCertificates,
  validateCertificatePath,
} from "@cred/oid4vc";
import type { AppDeps } from "../shared/context";
import { DomainError } from "../shared/errors";
import type { TenantScope } from "../shared/principal";
import {
  ensureVerifierCertificate,
  isHeldElsewhere,
  verifierDnsName,
  verifierKeyLocation,
  verifierKeyOf,
  verifierKeySealContext,
} from "../verification";
import { verifierCertificateRepository as repo } from "./verifier-certificate-repository";
import { installVerifierCertificate } from "./verifier-certificates";
import {
  destroyVerifierKeyOnceCommitted,
  destroyVerifierKeyQuietly,
  generateVerifierKey,
} from "./verifier-key-custody";

/**
 * Starts an access certificate (WRPAC, ETSI TS 119 411-8): a fresh P-256 key, sealed (or generated in
 * the key provider `keyCustody` names, an HSM, which signs the CSR) and kept beside the certificate in
 * use until the CA's certificate is imported, and a PKCS#10 request with the
 * legal-person subject (C, O, organizationIdentifier, CN), the dNSName SANs (the public host by default),
 * the contact SANs given and the requested certificate policies (NCP-l-eudiwrp by default). A new request replaces a pending one.
 *
 * Everything it reads and writes goes through `db`, the operation's unit of work, so that under an
 * Idempotency-Key the pending request commits with the recorded answer (a retry is answered that CSR
 * and makes no second key). A key made in a token before a failure here is destroyed again; the key of
 * the request replaced is destroyed only once the replacement is committed.
 */
export async function createVerifierCertificateSigningRequest(
  deps: AppDeps,
  db: UnitOfWork,
  scope: TenantScope,
  input: TCreateVerifierCertificateSigningRequestRequest,
): Promise<TVerifierCertificateSigningRequest> {
  const dnsNames = input.dnsNames ?? [verifierDnsName(deps.config.publicBaseUrl)].filter((n) => n !== null);
  if (dnsNames.length === 0)
    throw new DomainError(
      "ValidationFailed",
      "Name the DNS names to request: the public host is an IP address.",
      [
        {
          code: "PublicHostNotDnsName",
          target: "dnsNames",
          message: "the public host is an IP address; give dnsNames",
        },
      ],
    );
  const custody = {
    provider: input.keyCustody?.provider ?? "software",
    tokenLabel: input.keyCustody?.tokenLabel ?? null,
  };
  await ensureVerifierCertificate(deps, scope, db);
  // A key held by a provider (an HSM) is generated there first; the CSR is signed there too. A
  // failure after that (the token gone between the two, the write failing) destroys it again.
  const held =
    custody.provider === "software" && custody.tokenLabel === null
      ? null
      : await generateVerifierKey(deps, scope, custody);
  const heldColumns = held
    ? { keyProvider: held.provider, providerKeyRef: held.providerKeyRef }
    : { keyProvider: null, providerKeyRef: null };
  let request: Awaited<ReturnType<typeof createAccessCertificateRequest>>;
  const createdAt = new Date();
  let replaced: Awaited<ReturnType<typeof repo.setPendingRequest>>;
  try {
    const heldKey = held ? verifierKeyOf({ ...heldColumns, privateKeyCipher: null }, scope) : null;
    request = await createAccessCertificateRequest({
      organisationName: input.organisationName,
      organisationIdentifier: input.organisationIdentifier,
      country: input.country,
      ...(input.commonName ? { commonName: input.commonName } : {}),
      dnsNames,
      ...(input.certificatePolicies ? { policyOids: input.certificatePolicies } : {}),
      ...(input.contactUri ? { contactUris: [input.contactUri] } : {}),
      ...(input.contactEmail ? { contactEmails: [input.contactEmail] } : {}),
      ...(held && heldKey
        ? {
            heldKey: {
              signingKey: await deps.keyCustody.of(heldKey).signingKey(heldKey),
              publicJwk: held.publicJwk as Jwk,
            },
          }
        : {}),
    });
    replaced = await repo.setPendingRequest(db, scope, {
      pendingPrivateKeyCipher: request.privateKeyJwk
        ? deps.secretBox.seal(JSON.stringify(request.privateKeyJwk), verifierKeySealContext(scope))
        : null,
      pendingKeyProvider: heldColumns.keyProvider,
      pendingProviderKeyRef: heldColumns.providerKeyRef,
      pendingCsrPem: request.csrPem,
      pendingCreatedAt: createdAt,
    });
  } catch (error) {
    if (held) await destroyVerifierKeyQuietly(deps, scope, heldColumns);
    throw error;
  }
  // The request replaced is gone: a key of its in a token is destroyed there, once that is committed
  // (a rolled-back replacement leaves the request, and its key, as they were).
  await destroyVerifierKeyOnceCommitted(deps, db, scope, replaced);
  return {
    csrPem: request.csrPem,
    subject: request.subject,
    createdAt: createdAt.toISOString(),
    keyLocation: verifierKeyLocation(heldColumns),
  };
}

/**
 * Installs the certificate the access CA issued for the pending request: the chain (leaf first) must
 * validate to `trustAnchorPem` (RFC 5280 path validation with pkijs: signatures, validity, CA
 * constraints, critical extensions), the leaf must carry the pending key and an organizationIdentifier,
 * and pass the checks of an uploaded certificate (P-256, dNSName, not a CA). Then request objects are
 * signed with it (x5c = the chain without the root). No pending request → 409 `InvalidState`; a chain
 * that does not validate or fit → 400 `InvalidCertificate` with one detail per problem.
 */
export async function importVerifierAccessCertificate(
  deps: AppDeps,
  scope: TenantScope,
  input: TImportVerifierAccessCertificateRequest,
) {
  const row = await ensureVerifierCertificate(deps, scope);
  if (!row.pendingPrivateKeyCipher && !row.pendingProviderKeyRef)
    throw new DomainError(
      "InvalidState",
      "No access-certificate signing request is pending: create one (VerifierCertificates_CreateSigningRequest) and have the access CA issue it first.",
    );
  const invalid = (target: string, message: string) =>
    new DomainError("InvalidCertificate", "The access certificate cannot be used; see details.", [
      { code: "InvalidCertificate", target, message },
    ]);
  let chain: Uint8Array[];
  let anchor: Uint8Array;
  try {
    chain = splitPemCertificates(input.certificateChainPem).map(
      (pem) => new Uint8Array(new X509Certificate(pem).raw),
    );
  } catch (error) {
    throw invalid("certificateChainPem", `unparsable certificate: ${(error as Error).message}`);
  }
  if (chain.length === 0) throw invalid("certificateChainPem", "no PEM certificate found");
  try {
    anchor = new Uint8Array(new X509Certificate(input.trustAnchorPem).raw);
  } catch {
    throw invalid("trustAnchorPem", "not a PEM certificate");
  }
  const path = await validateCertificatePath({ chain, trustAnchor: anchor, at: new Date() });
  if (!path.valid)
    throw invalid("certificateChainPem", `the chain does not validate to the trust anchor: ${path.message}`);
  if (organisationIdentifiersOf(chain[0]!).length === 0)
    throw invalid(
      "certificateChainPem",
      "the leaf has no organizationIdentifier (ETSI TS 119 411-8 access certificate)",
    );
  const pending = {
    keyProvider: row.pendingKeyProvider,
    providerKeyRef: row.pendingProviderKeyRef,
    privateKeyCipher: row.pendingPrivateKeyCipher,
  };
  if (isHeldElsewhere(pending)) {
    // The key in the token: its public key is read there (503 while it is unreachable, nothing written).
    const key = verifierKeyOf(pending, scope);
    const publicJwk = (await deps.keyCustody.of(key).publicJwk(key)) as Jwk;
    return installVerifierCertificate(
      deps,
      scope,
      input.certificateChainPem,
      { provider: pending.keyProvider!, providerKeyRef: pending.providerKeyRef!, publicJwk },
      { endPendingRequest: true },
    );
  }
  const pendingKey = JSON.parse(
    deps.secretBox.open(row.pendingPrivateKeyCipher!, verifierKeySealContext(scope)),
  ) as Jwk;
  return installVerifierCertificate(deps, scope, input.certificateChainPem, pendingKey, {
    endPendingRequest: true,
  });
}
