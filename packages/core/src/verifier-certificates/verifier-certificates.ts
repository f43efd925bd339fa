import { X509Certificate } from "node:crypto";
import type {
  TUploadVerifierCertificateRequest,
  TVerifierCertificate,
} from "@cred/contracts/verifier-certificates";
import {
  certificateDnsNames,
  InvalidVerifierCertificateError,
  isDnsName,
  type Jwk,
  organisationIdentifiersOf,
  parseVerifierCertificate,
  signingRequestSubject,
  splitPemCertificates,
  x509HashClientId,
} from "@cred/oid4vc";
import type { AppDeps, CoreConfig } from "../shared/context";
import { DomainError } from "../shared/errors";
import { newId } from "../shared/ids";
import type { TenantScope } from "../shared/principal";
import {
  ensureVerifierCertificate,
  publicHost,
  verifierDnsName,
  verifierKeyLocation,
  verifierKeySealContext,
} from "../verification";
import { verifierCertificateRepository as repo } from "./verifier-certificate-repository";
import { destroyVerifierKeyQuietly } from "./verifier-key-custody";

/** More certificates than this in an upload is refused (they all travel in every request object). */
const MAX_CHAIN_LENGTH = 5;

type CertificateRow = Awaited<ReturnType<typeof ensureVerifierCertificate>>;

function oneLine(name: string): string {
  return name.split("\n").join(", ");
}

export function toDto(row: CertificateRow, config: Pick<CoreConfig, "publicBaseUrl">): TVerifierCertificate {
  const leaf = new X509Certificate(splitPemCertificates(row.chainPem)[0]!);
  const dnsNames = certificateDnsNames(leaf);
  const host = verifierDnsName(config.publicBaseUrl);
  const usable = host !== null && dnsNames.includes(host);
  const warnings: string[] = [];
  if (leaf.checkIssued(leaf) && leaf.verify(leaf.publicKey))
    warnings.push("leaf certificate is self-signed (not HAIP compliant)");
  if (host === null)
    warnings.push(
      `the public host '${publicHost(config.publicBaseUrl)}' is an IP address, not a DNS name: verifications under x509_san_dns policies are refused (409 VerifierCertificateMismatch)`,
    );
  else if (!usable)
    warnings.push(
      `no dNSName is the public host '${host}': verifications under x509_san_dns policies are refused (409 VerifierCertificateMismatch)`,
    );
  return {
    certificateChainPem: row.chainPem,
    subject: oneLine(leaf.subject),
    issuer: oneLine(leaf.issuer),
    serialNumber: leaf.serialNumber,
    dnsName: row.dnsName,
    dnsNames,
    notBefore: new Date(leaf.validFrom).toISOString(),
    notAfter: new Date(leaf.validTo).toISOString(),
    clientIds: { x509Hash: x509HashClientId(leaf.raw), x509SanDns: `x509_san_dns:${row.dnsName}` },
    x509SanDnsUsable: usable,
    organisationIdentifiers: organisationIdentifiersOf(leaf.raw),
    signingRequest:
      row.pendingCsrPem && row.pendingCreatedAt
        ? {
            csrPem: row.pendingCsrPem,
            subject: signingRequestSubject(row.pendingCsrPem),
            createdAt: row.pendingCreatedAt.toISOString(),
            keyLocation: verifierKeyLocation({
              keyProvider: row.pendingKeyProvider,
              providerKeyRef: row.pendingProviderKeyRef,
            }),
          }
        : null,
    keyLocation: verifierKeyLocation(row),
    uploaded: row.uploaded,
    createdAt: row.createdAt.toISOString(),
    warnings,
  };
}

/** The verifier certificate of the caller's environment, generated on first use (as sessions do). */
export async function getVerifierCertificate(deps: AppDeps, scope: TenantScope) {
  return toDto(await ensureVerifierCertificate(deps, scope), deps.config);
}

/**
 * Replaces the verifier certificate of the caller's environment by an uploaded chain and key, checked
 * with `parseVerifierCertificate` (parsable, P-256 leaf matching the key, dNSName SAN, valid now, chain
 * ordered) → 400 `InvalidCertificate` with one detail per problem. The key is sealed (a key the
 * replaced certificate held in a token is destroyed there); the in-memory
 * identity of this process is dropped, so the next request object is signed with the new chain.
 */
export async function uploadVerifierCertificate(
  deps: AppDeps,
  scope: TenantScope,
  input: TUploadVerifierCertificateRequest,
) {
  return installVerifierCertificate(deps, scope, input.certificateChainPem, input.privateKeyPem);
}

/**
 * Checks a chain and its key (`parseVerifierCertificate`) and installs them as the certificate of the
 * caller's environment: 400 `InvalidCertificate` with one detail per problem.
 */
export async function installVerifierCertificate(
  deps: AppDeps,
  scope: TenantScope,
  certificateChainPem: string,
  privateKey: string | Jwk | HeldVerifierKey,
  options: { endPendingRequest?: boolean } = {},
) {
  const held = typeof privateKey === "object" && "providerKeyRef" in privateKey ? privateKey : null;
  const invalid = (issues: string[]) =>
    new DomainError(
      "InvalidCertificate",
      "The certificate chain or private key cannot be used; see details.",
      issues.map((message) => ({
        code: "InvalidCertificate",
        target: /private key|unparsable private/.test(message) ? "privateKeyPem" : "certificateChainPem",
        message,
      })),
    );
  const pems = splitPemCertificates(certificateChainPem);
  if (pems.length > MAX_CHAIN_LENGTH)
    throw invalid([`the chain has ${pems.length} certificates; at most ${MAX_CHAIN_LENGTH} are accepted`]);
  let parsed: ReturnType<typeof parseVerifierCertificate>;
  try {
    parsed = held
      ? parseVerifierCertificate({ certificateChainPem, publicJwk: held.publicJwk })
      : parseVerifierCertificate({ certificateChainPem, privateKey: privateKey as string | Jwk });
  } catch (error) {
    if (error instanceof InvalidVerifierCertificateError) throw invalid(error.issues);
    throw error;
  }
  const host = verifierDnsName(deps.config.publicBaseUrl);
  const replaced = await ensureVerifierCertificate(deps, scope);
  const row = await repo.replace(
    deps.database.root,
    deps.caches,
    scope,
    {
      id: newId("vcert"),
      chainPem: `${pems.join("\n")}\n`,
      privateKeyCipher: held
        ? null
        : deps.secretBox.seal(JSON.stringify(parsed.privateKeyJwk), verifierKeySealContext(scope)),
      keyProvider: held ? held.provider : null,
      providerKeyRef: held ? held.providerKeyRef : null,
      // The public host when the leaf names it, else its first name that is a DNS name (not an IP).
      dnsName:
        host !== null && parsed.dnsNames.includes(host)
          ? host
          : (parsed.dnsNames.find(isDnsName) ?? parsed.dnsNames[0]!),
      uploaded: true,
    },
    options,
  );
  // The key of the certificate replaced signs nothing any more: one held in a token is destroyed there.
  if (replaced.providerKeyRef !== row.providerKeyRef) await destroyVerifierKeyQuietly(deps, scope, replaced);
  return toDto(row, deps.config);
}

/** A key held by a provider (an HSM) for a certificate: the leaf must carry its public key. */
export interface HeldVerifierKey {
  provider: string;
  providerKeyRef: string;
  publicJwk: Jwk;
}
