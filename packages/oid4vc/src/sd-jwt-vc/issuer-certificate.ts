import { X509Certificate } from "node:crypto";
import type { JWK } from "jose";
import { type Es256SigningKey, es256SignerOf } from "../jose/jws";
import { heldKeyCrypto } from "../x509/held-key-crypto";
import { x509 } from "../x509/peculiar-x509";
import { splitPemCertificates } from "../x509/pem";

const ES256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

/** More certificates than this travel in every credential's header; longer chains are refused. */
export const MAX_ISSUER_CHAIN_LENGTH = 5;

/** RFC 5280 upper bound of a CN or O attribute. */
const MAX_NAME_LENGTH = 64;

export type IssuerCertificateRequestInput = (
  | {
      /** The issuer's signing key (P-256); the request is signed with it, proving possession. */
      privateJwk: JWK;
    }
  | {
      /** A signer for a key held elsewhere (an HSM), with its public key: the request is signed there. */
      signingKey: Es256SigningKey;
      publicJwk: JWK;
    }
) & {
  commonName: string;
  organisationName?: string;
  /** The credential issuer identifier, the credentials' `iss`. */
  credentialIssuer: string;
};

/**
 * A PKCS#10 certificate signing request (PEM) for an issuer's signing key, for a CA to certify. Its
 * subjectAltName is the credential issuer identifier (URI) alone: the name verifiers match a
 * credential's `iss` against when it comes with `x5c` (see `certificateNamesIssuer`). Not the host as a
 * DNS name, which many issuers on one platform share.
 */
export async function createIssuerCertificateRequest(input: IssuerCertificateRequestInput): Promise<string> {
  const subtle = globalThis.crypto.subtle;
  const { kty, crv, x, y } = "privateJwk" in input ? input.privateJwk : input.publicJwk;
  const publicKey = await subtle.importKey("jwk", { kty, crv, x, y }, ES256, true, ["verify"]);
  const privateKey =
    "privateJwk" in input
      ? await subtle.importKey("jwk", { kty, crv, x, y, d: input.privateJwk.d }, ES256, false, ["sign"])
      : null;
  // A key held elsewhere signs through a stand-in WebCrypto whose `sign` asks its signer.
  const held = "signingKey" in input ? heldKeyCrypto(es256SignerOf(input.signingKey)) : null;
  const keys = held ? { privateKey: held.privateKey, publicKey } : { privateKey: privateKey!, publicKey };
  const provider = held?.crypto;
  const name: Record<string, string[]>[] = [{ CN: [input.commonName.slice(0, MAX_NAME_LENGTH)] }];
  if (input.organisationName) name.push({ O: [input.organisationName.slice(0, MAX_NAME_LENGTH)] });
  const csr = await x509.Pkcs10CertificateRequestGenerator.create(
    {
      name,
      keys,
      signingAlgorithm: ES256,
      extensions: [
        new x509.SubjectAlternativeNameExtension([{ type: "url", value: input.credentialIssuer }]),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      ],
    },
    provider,
  );
  return csr.toString("pem");
}

/**
 * Whether a leaf certificate names the issuer `iss`: as a uniformResourceIdentifier SAN, or the host of
 * an https `iss` as a dNSName SAN. Earlier SD-JWT VC drafts required this of an `x5c` credential with an
 * `iss`, and verifiers built on them still check it; the current draft makes the leaf's subject the
 * issuer and `iss` optional.
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
  /** When the whole chain is valid: the latest `notBefore` and the earliest `notAfter` of its certificates. */
  notBefore: Date;
  notAfter: Date;
}

/** Signed by its own key under its own name (`checkIssued` would also want keyCertSign of it). */
function isSelfSigned(cert: X509Certificate): boolean {
  return cert.issuer === cert.subject && cert.verify(cert.publicKey);
}

function sanUris(cert: X509Certificate): string[] {
  return (cert.subjectAltName ?? "")
    .split(/,\s*/)
    .filter((entry) => entry.startsWith("URI:"))
    .map((entry) => entry.slice(4));
}

/** False when the certificate has a key usage extension without `digitalSignature`. */
function allowsSignatures(cert: X509Certificate): boolean {
  const extension = new x509.X509Certificate(cert.raw).extensions.find((e) => e.type === "2.5.29.15");
  if (!extension) return true;
  return (new x509.KeyUsagesExtension(extension.rawData).usages & x509.KeyUsageFlags.digitalSignature) !== 0;
}

/**
 * Checks a certificate chain (PEM, leaf first) for an issuer's signing key: parsable, at most
 * `MAX_ISSUER_CHAIN_LENGTH` certificates; the leaf an end-entity certificate of exactly `publicJwk`, not
 * self-signed (HAIP), usable for signatures, naming `credentialIssuer` as a URI subjectAltName (a host
 * name would name every issuer of the platform); every certificate valid now, each issued and signed by
 * the next, every one after the leaf a CA. Throws `InvalidIssuerCertificateError` with every problem found.
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
  const key = leaf.publicKey;
  if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
    issues.push("leaf key must be an EC P-256 key (ES256)");
  } else {
    const jwk = key.export({ format: "jwk" });
    if (jwk.x !== input.publicJwk.x || jwk.y !== input.publicJwk.y)
      issues.push("the leaf certificate is not for the issuer's current signing key");
  }
  if (leaf.ca) issues.push("leaf certificate must not be a CA certificate");
  if (isSelfSigned(leaf)) issues.push("leaf certificate must not be self-signed (HAIP)");
  if (!allowsSignatures(leaf)) issues.push("leaf certificate's key usage does not include digitalSignature");
  if (!sanUris(leaf).includes(input.credentialIssuer))
    issues.push(
      `leaf certificate must name ${input.credentialIssuer} as a URI subjectAltName: X.509 verifiers match the credentials' iss against it`,
    );
  const now = input.now ?? new Date();
  certs.forEach((cert, i) => {
    const which = i === 0 ? "leaf certificate" : `certificate ${i}`;
    if (new Date(cert.validFrom) > now) issues.push(`${which} is not yet valid`);
    if (new Date(cert.validTo) < now) issues.push(`${which} has expired`);
  });
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
    notBefore: new Date(Math.max(...certs.map((c) => Date.parse(c.validFrom)))),
    notAfter: new Date(Math.min(...certs.map((c) => Date.parse(c.validTo)))),
  };
}
