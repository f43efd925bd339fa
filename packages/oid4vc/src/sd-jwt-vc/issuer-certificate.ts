import { X509Certificate } from "node:crypto";
import type { JWK } from "jose";
import { splitPemCertificates } from "../vp/verifier-certificate";
import { x509 } from "../vp/x509";

const ES256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

/** More certificates than this travel in every credential's header; longer chains are refused. */
export const MAX_ISSUER_CHAIN_LENGTH = 5;

export interface IssuerCertificateRequestInput {
  /** The issuer's signing key (P-256); the request is signed with it, proving possession. */
  privateJwk: JWK;
  commonName: string;
  organisationName?: string;
  /** The credential issuer identifier, the credentials' `iss`. */
  credentialIssuer: string;
}

/**
 * A PKCS#10 certificate signing request (PEM) for an issuer's signing key, for a CA to certify. Its
 * subjectAltName holds the credential issuer identifier (URI) and its host (DNS): the names verifiers
 * match a credential's `iss` against when it comes with `x5c` (SD-JWT VC §3.5).
 */
export async function createIssuerCertificateRequest(input: IssuerCertificateRequestInput): Promise<string> {
  const { kty, crv, x, y, d } = input.privateJwk;
  const subtle = globalThis.crypto.subtle;
  const [privateKey, publicKey] = await Promise.all([
    subtle.importKey("jwk", { kty, crv, x, y, d }, ES256, false, ["sign"]),
    subtle.importKey("jwk", { kty, crv, x, y }, ES256, true, ["verify"]),
  ]);
  const name: Record<string, string[]>[] = [{ CN: [input.commonName] }];
  if (input.organisationName) name.push({ O: [input.organisationName] });
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name,
    keys: { privateKey, publicKey },
    signingAlgorithm: ES256,
    extensions: [
      new x509.SubjectAlternativeNameExtension([
        { type: "url", value: input.credentialIssuer },
        { type: "dns", value: new URL(input.credentialIssuer).hostname },
      ]),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    ],
  });
  return csr.toString("pem");
}

/**
 * SD-JWT VC §3.5 with `x5c`: the leaf names the issuer `iss` as a uniformResourceIdentifier SAN, or the
 * host of an https `iss` as a dNSName SAN.
 */
export function certificateNamesIssuer(leaf: X509Certificate, iss: unknown): boolean {
  if (typeof iss !== "string") return false;
  const entries = (leaf.subjectAltName ?? "").split(/,\s*/);
  if (entries.includes(`URI:${iss}`)) return true;
  let host: string;
  try {
    host = new URL(iss).hostname.toLowerCase();
  } catch {
    return false;
  }
  return entries.some((e) => e.toLowerCase() === `dns:${host}`);
}

export class InvalidIssuerCertificateError extends Error {
  override readonly name = "InvalidIssuerCertificateError";
  constructor(readonly issues: string[]) {
    super(`invalid issuer certificate: ${issues.join("; ")}`);
  }
}

export interface IssuerCertificate {
  /** The chain as uploaded, PEM, leaf first. */
  chainPem: string;
  /** `x5c` header value (base64 DER, leaf first): a trailing self-signed root is left out (HAIP). */
  x5c: string[];
  notBefore: Date;
  notAfter: Date;
}

function isSelfSigned(cert: X509Certificate): boolean {
  return cert.checkIssued(cert) && cert.verify(cert.publicKey);
}

/**
 * Checks a certificate chain (PEM, leaf first) for an issuer's signing key: parsable, at most
 * `MAX_ISSUER_CHAIN_LENGTH` certificates, the leaf an end-entity certificate of exactly `publicJwk`,
 * valid now and naming `credentialIssuer` (see `certificateNamesIssuer`), each certificate issued and
 * signed by the next, every one after the leaf a CA. Throws `InvalidIssuerCertificateError` with every
 * problem found.
 */
export function parseIssuerCertificateChain(input: {
  certificateChainPem: string;
  publicJwk: JWK;
  credentialIssuer: string;
  now?: Date;
}): IssuerCertificate {
  const pems = splitPemCertificates(input.certificateChainPem);
  if (pems.length === 0) throw new InvalidIssuerCertificateError(["no PEM certificate found"]);
  if (pems.length > MAX_ISSUER_CHAIN_LENGTH)
    throw new InvalidIssuerCertificateError([
      `the chain has ${pems.length} certificates; at most ${MAX_ISSUER_CHAIN_LENGTH} are accepted`,
    ]);
  let certs: X509Certificate[];
  try {
    certs = pems.map((pem) => new X509Certificate(pem));
  } catch (cause) {
    throw new InvalidIssuerCertificateError([`unparsable certificate: ${(cause as Error).message}`]);
  }

  const issues: string[] = [];
  const leaf = certs[0]!;
  const leafJwk = leaf.publicKey.export({ format: "jwk" });
  if (leafJwk.kty !== "EC" || leafJwk.crv !== "P-256")
    issues.push("leaf key must be an EC P-256 key (ES256)");
  else if (leafJwk.x !== input.publicJwk.x || leafJwk.y !== input.publicJwk.y)
    issues.push("the leaf certificate is not for the issuer's current signing key");
  if (leaf.ca) issues.push("leaf certificate must not be a CA certificate");
  const now = input.now ?? new Date();
  if (new Date(leaf.validFrom) > now) issues.push("leaf certificate is not yet valid");
  if (new Date(leaf.validTo) < now) issues.push("leaf certificate has expired");
  if (!certificateNamesIssuer(leaf, input.credentialIssuer)) {
    const host = new URL(input.credentialIssuer).hostname;
    issues.push(
      `leaf certificate names neither ${input.credentialIssuer} (URI subjectAltName) nor ${host} (DNS subjectAltName); verifiers match the credentials' iss against them`,
    );
  }
  for (let i = 0; i + 1 < certs.length; i++) {
    const cert = certs[i]!;
    const issuer = certs[i + 1]!;
    if (!cert.checkIssued(issuer) || !cert.verify(issuer.publicKey))
      issues.push(
        `certificate ${i} is not issued by certificate ${i + 1} (chain must be ordered leaf first)`,
      );
    if (!issuer.ca) issues.push(`certificate ${i + 1} issues certificate ${i} but is not a CA certificate`);
  }
  if (issues.length > 0) throw new InvalidIssuerCertificateError(issues);

  const last = certs[certs.length - 1]!;
  const chain = certs.length > 1 && isSelfSigned(last) ? certs.slice(0, -1) : certs;
  return {
    chainPem: `${pems.join("\n")}\n`,
    x5c: chain.map((c) => c.raw.toString("base64")),
    notBefore: new Date(leaf.validFrom),
    notAfter: new Date(leaf.validTo),
  };
}
