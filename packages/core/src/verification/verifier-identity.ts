import type { KeyObject } from "node:crypto";
import { createPrivateKey, X509Certificate } from "node:crypto";
import type { TVerifierKeyLocation } from "@cred/contracts/verifier-certificates";
import type { UnitOfWork } from "@cred/db";
import {
  DECENTRALIZED_IDENTIFIER_PREFIX,
  didJwkOf,
  didJwkVerificationMethod,
  didWebOf,
  didWebVerificationMethod,
  type Es256Signer,
  es256SignerOf,
  generateVerifierCertificate,
  isDnsName,
  type Jwk,
  organisationIdentifiersOf,
  parseVerifierCertificate,
  type RegisteredCredential,
  type RequestObjectSigner,
  splitPemCertificates,
} from "@cred/oid4vc";
import { cacheSpec } from "../shared/caches";
import type { AppDeps, CoreConfig } from "../shared/context";
import { DomainError } from "../shared/errors";
import { newId } from "../shared/ids";
import type { StoredKeyReference } from "../shared/key-custody";
import type { TenantScope } from "../shared/principal";
import { verificationRepository } from "./verification-repository";

export type ClientIdPrefix = "x509_hash" | "x509_san_dns" | "decentralized_identifier";
/** The DID method of a `decentralized_identifier` client id (policy `didMethod`, `jwk` by default). */
export type VerifierDidMethod = "jwk" | "web";

/**
 * The verifier's `did:web` for a tenant + environment: `did:web:<public host>[:<base path>]:verifier:
 * <tenantId>:<environment>`, so its document is read at `<publicBaseUrl>/verifier/<tenantId>/
 * <environment>/did.json` (did:web §3.2), which the API serves from the current verifier key.
 */
export function didWebOfScope(config: Pick<CoreConfig, "publicBaseUrl">, scope: TenantScope): string {
  return didWebOf(config.publicBaseUrl, ["verifier", scope.tenantId, scope.environment]);
}

/** The verifier as wallets see it: signing key, `x5c` chain and the client ids it can use. */
export interface VerifierIdentity {
  certificateId: string;
  x5c: string[];
  /**
   * What signs request objects: a software key imported once (signed with directly), or the signer of
   * the key provider holding it (a PKCS#11 token: one round trip per request object).
   */
  signingKey: KeyObject | Es256Signer;
  /** Where the private key is held (docs/key-custody.md). */
  keyLocation: TVerifierKeyLocation;
  /** Every dNSName SAN of the leaf (lower case). */
  dnsNames: string[];
  /** The `did:jwk` of the same key: the verifier's DID for `decentralized_identifier` (§5.9.3). */
  did: string;
  /**
   * The `did:web` of this tenant + environment on the public origin (`didWebOfScope`), whose document
   * (served at `/verifier/<tenant>/<environment>/did.json`) lists the same key.
   */
  didWeb: string;
  /** The public key (P-256 JWK, no `d`). */
  publicJwk: Jwk;
  /** `x509_san_dns` is the leaf's first dNSName; use `clientIdFor` to pick the one wallets accept. */
  clientIds: { x509_hash: string; x509_san_dns: string; decentralized_identifier: string };
  /** The leaf subject's organizationIdentifier values (an access certificate, ETSI TS 119 411-8). */
  organisationIdentifiers: string[];
  /** The registration certificate (WRPRC) of this tenant + environment, if one was uploaded. */
  registration: VerifierRegistration | null;
}

/** A registration certificate as sessions use it: sent in `verifier_info`, its limits enforced. */
export interface VerifierRegistration {
  jwt: string;
  subjectIds: string[];
  intermediaryIds: string[];
  credentials: RegisteredCredential[];
  expiresAt: Date | null;
}

/**
 * Identities by tenant + environment (`verifierIdentityKey`), as the promise of their load (concurrent
 * first uses share one). Re-read after a minute, so an upload handled by another process is picked up
 * within it; the process that handles the upload drops its entry when the new certificate commits
 * (the verifier-certificates repository).
 */
export const verifierIdentityCache = cacheSpec<Promise<VerifierIdentity>>("verification.verifierIdentities", {
  max: 1_000,
  ttlMs: 60_000,
});

export const verifierIdentityKey = (scope: TenantScope) => `${scope.tenantId}|${scope.environment}`;

export function verifierKeySealContext(scope: TenantScope) {
  return `verifier-certificate:${scope.tenantId}:${scope.environment}`;
}

/** The columns of a verifier certificate row that say where a key is held (in use or pending). */
export interface VerifierKeyColumns {
  keyProvider: string | null;
  providerKeyRef: string | null;
  privateKeyCipher: string | null;
}

/** The columns that say which provider holds a key, and under what reference. */
export type VerifierKeyPlace = Pick<VerifierKeyColumns, "keyProvider" | "providerKeyRef">;

/** How a verifier certificate row's key (or its pending key) is found in its provider. */
export function verifierKeyOf(columns: VerifierKeyColumns, scope: TenantScope): StoredKeyReference {
  return {
    provider: columns.keyProvider,
    providerKeyRef: columns.providerKeyRef,
    privateKeyCipher: columns.privateKeyCipher,
    sealedFor: verifierKeySealContext(scope),
  };
}

/** Where a verifier key is held, as the VerifierCertificate resource shows it. */
export function verifierKeyLocation(columns: VerifierKeyPlace) {
  return {
    provider: (columns.keyProvider ?? "software") as TVerifierKeyLocation["provider"],
    keyReference: columns.providerKeyRef,
  };
}

/** Whether a key is held outside the database (an HSM): it must be destroyed there once unused. */
export const isHeldElsewhere = (columns: VerifierKeyPlace) =>
  (columns.keyProvider ?? "software") !== "software" && columns.providerKeyRef !== null;

/** The host of the public base URL (the response_uri host), lower case, an IPv6 literal without brackets. */
export function publicHost(publicBaseUrl: string): string {
  return new URL(publicBaseUrl).hostname.replace(/^\[|\]$/g, "").toLowerCase();
}

/**
 * The verifier's x509_san_dns identity: the host of the public base URL when it is a DNS name, null when
 * it is an IP address (IPv4 or IPv6), which a dNSName and so an `x509_san_dns` client id cannot hold
 * (OpenID4VP §5.9.3; an IP belongs in an iPAddress SAN, which that prefix does not use).
 */
export function verifierDnsName(publicBaseUrl: string): string | null {
  const host = publicHost(publicBaseUrl);
  return isDnsName(host) ? host : null;
}

/**
 * The stored certificate row of a tenant + environment; the first call generates one (a CA + leaf
 * whose dNSName SAN is the host of the public base URL, so `x509_san_dns` works out of the box; the CA
 * key is discarded, so the leaf can never be re-issued from it: upload a chain to replace it). Read and
 * written through `db`: the root, or the unit of work of the operation that needs it (an
 * Idempotency-Key's transaction, in which a generated one commits with the operation or not at all).
 */
export async function ensureVerifierCertificate(
  deps: AppDeps,
  scope: TenantScope,
  db: UnitOfWork = deps.database.root,
) {
  const row = await verificationRepository.findVerifierCertificate(db, scope);
  if (row) return row;
  // An IP address (IPv4 or IPv6) cannot be a dNSName: the reserved `.invalid` name keeps x509_hash
  // working, and x509_san_dns is refused (409) while the public host is not a DNS name.
  const generated = await generateVerifierCertificate({
    dnsName: verifierDnsName(deps.config.publicBaseUrl) ?? "verifier.invalid",
  });
  // A concurrent first use may store its own first: then that one is read and used.
  await verificationRepository.createVerifierCertificateIfAbsent(db, {
    id: newId("vcert"),
    ...scope,
    chainPem: generated.certificateChainPem,
    privateKeyCipher: deps.secretBox.seal(
      JSON.stringify(generated.privateKeyJwk),
      verifierKeySealContext(scope),
    ),
    dnsName: generated.dnsName,
    uploaded: false,
  });
  const stored = await verificationRepository.findVerifierCertificate(db, scope);
  if (!stored) throw new Error("the verifier certificate was neither stored nor found");
  return stored;
}

async function load(deps: AppDeps, scope: TenantScope): Promise<VerifierIdentity> {
  const row = await ensureVerifierCertificate(deps, scope);
  const registration = await verificationRepository.findVerifierRegistrationCertificate(
    deps.database.root,
    scope,
  );
  let signingKey: KeyObject | Es256Signer;
  let publicKey: Jwk;
  let parsed: ReturnType<typeof parseVerifierCertificate>;
  if (isHeldElsewhere(row)) {
    // The key is in its provider (an HSM): the leaf's public key is the key's (checked when the
    // certificate was imported), so loading asks the token nothing; signing does.
    const key = verifierKeyOf(row, scope);
    signingKey = es256SignerOf(await deps.keyCustody.of(key).signingKey(key));
    const leaf = new X509Certificate(splitPemCertificates(row.chainPem)[0]!);
    const { kty, crv, x, y } = leaf.publicKey.export({ format: "jwk" });
    publicKey = { kty, crv, x, y } as Jwk;
    parsed = parseVerifierCertificate({ certificateChainPem: row.chainPem, publicJwk: publicKey });
  } else {
    if (row.privateKeyCipher === null) throw new Error("the verifier certificate's sealed key is missing");
    const privateJwk = JSON.parse(deps.secretBox.open(row.privateKeyCipher, verifierKeySealContext(scope)));
    parsed = parseVerifierCertificate({ certificateChainPem: row.chainPem, privateKey: privateJwk });
    const { d: _private, ...rest } = privateJwk;
    publicKey = rest;
    signingKey = createPrivateKey({ key: privateJwk, format: "jwk" });
  }
  const did = didJwkOf(publicKey);
  return {
    didWeb: didWebOfScope(deps.config, scope),
    publicJwk: publicKey,
    certificateId: row.id,
    x5c: parsed.x5c,
    signingKey,
    keyLocation: verifierKeyLocation(row),
    dnsNames: parsed.dnsNames,
    did,
    clientIds: {
      x509_hash: parsed.clientIds.x509Hash,
      x509_san_dns: parsed.clientIds.x509SanDns,
      decentralized_identifier: `${DECENTRALIZED_IDENTIFIER_PREFIX}${did}`,
    },
    organisationIdentifiers: organisationIdentifiersOf(Buffer.from(parsed.x5c[0]!, "base64")),
    registration: registration ? toVerifierRegistration(registration) : null,
  };
}

/** A stored registration certificate row as sessions use it. */
export function toVerifierRegistration(row: {
  jwt: string;
  registration: unknown;
  expiresAt: Date | null;
}): VerifierRegistration {
  return {
    jwt: row.jwt,
    ...(row.registration as Pick<VerifierRegistration, "subjectIds" | "intermediaryIds" | "credentials">),
    expiresAt: row.expiresAt,
  };
}

/**
 * The verifier certificate of a tenant + environment, generated on first use and cached in memory with
 * its decrypted, imported key (one database read and one decryption per process and minute).
 */
export function getVerifierIdentity(deps: AppDeps, scope: TenantScope): Promise<VerifierIdentity> {
  const key = verifierIdentityKey(scope);
  const cache = deps.caches.of(verifierIdentityCache);
  const cached = cache.peek(key);
  if (cached) return cached;
  const identity = load(deps, scope);
  identity.catch(() => {
    if (cache.peek(key) === identity) cache.delete(key);
  });
  cache.set(key, identity);
  return identity;
}

/**
 * The client_id a new session uses. `x509_san_dns` needs the host of the response_uri to be a DNS name
 * and a dNSName SAN of the leaf equal to it (OpenID4VP §5.9.3; wallets check it), otherwise 409
 * `VerifierCertificateMismatch`.
 */
export function clientIdFor(
  identity: VerifierIdentity,
  prefix: ClientIdPrefix,
  config: Pick<CoreConfig, "publicBaseUrl">,
  didMethod: VerifierDidMethod = "jwk",
): string {
  if (prefix === "x509_hash") return identity.clientIds.x509_hash;
  if (prefix === "decentralized_identifier") {
    return didMethod === "web"
      ? `${DECENTRALIZED_IDENTIFIER_PREFIX}${identity.didWeb}`
      : identity.clientIds.decentralized_identifier;
  }
  const host = verifierDnsName(config.publicBaseUrl);
  if (host === null) {
    const ip = publicHost(config.publicBaseUrl);
    throw new DomainError(
      "VerifierCertificateMismatch",
      `The policy asks for the x509_san_dns client identifier, but the response_uri host '${ip}' is an IP address, not a DNS name (OpenID4VP §5.9.3). Serve the platform under a DNS name (PUBLIC_BASE_URL) or use x509_hash.`,
      [
        {
          code: "PublicHostNotDnsName",
          target: "clientIdPrefix",
          message: `The public host '${ip}' is an IP address; x509_san_dns needs a DNS name.`,
        },
      ],
    );
  }
  if (!identity.dnsNames.includes(host)) {
    throw new DomainError(
      "VerifierCertificateMismatch",
      `The policy asks for the x509_san_dns client identifier, but no dNSName of the verifier certificate (${identity.dnsNames.join(", ")}) is the response_uri host '${host}'. Upload a certificate for '${host}' or use x509_hash.`,
      [
        {
          code: "DnsNameMismatch",
          target: "clientIdPrefix",
          message: `The verifier certificate has no dNSName '${host}'.`,
        },
      ],
    );
  }
  return `x509_san_dns:${host}`;
}

/**
 * Whether the current certificate still speaks for a session's stored client_id: the same leaf hash
 * for `x509_hash`, a dNSName equal to the response_uri host for `x509_san_dns`.
 */
export function identityServesClientId(
  identity: VerifierIdentity,
  clientId: string,
  config: Pick<CoreConfig, "publicBaseUrl">,
): boolean {
  if (clientId.startsWith("x509_hash:")) return clientId === identity.clientIds.x509_hash;
  if (clientId.startsWith(DECENTRALIZED_IDENTIFIER_PREFIX)) {
    // did:web names the tenant, not the key: it keeps serving after the certificate is replaced.
    return (
      clientId === identity.clientIds.decentralized_identifier ||
      clientId === `${DECENTRALIZED_IDENTIFIER_PREFIX}${identity.didWeb}`
    );
  }
  if (clientId.startsWith("x509_san_dns:")) {
    const dns = clientId.slice("x509_san_dns:".length);
    const host = verifierDnsName(config.publicBaseUrl);
    return host !== null && dns === host && identity.dnsNames.includes(dns);
  }
  return false;
}

/**
 * How a session's request object is signed: with `kid` = the DID's verification method for a
 * `decentralized_identifier` client_id (did:web: `<did>#<JWK thumbprint>`, the method its document
 * lists; did:jwk: `#0`) (OpenID4VP §5.9.3: "the kid header … MUST reference the
 * verification method"), with the `x5c` chain otherwise.
 */
export function requestObjectSigner(identity: VerifierIdentity, clientId: string): RequestObjectSigner {
  if (clientId === `${DECENTRALIZED_IDENTIFIER_PREFIX}${identity.didWeb}`) {
    return {
      privateKey: identity.signingKey,
      kid: didWebVerificationMethod(identity.didWeb, identity.publicJwk),
    };
  }
  if (clientId.startsWith(DECENTRALIZED_IDENTIFIER_PREFIX)) {
    return { privateKey: identity.signingKey, kid: didJwkVerificationMethod(identity.did) };
  }
  return { privateKey: identity.signingKey, x5c: identity.x5c };
}
