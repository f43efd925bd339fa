import {
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  type webcrypto,
  X509Certificate,
} from "node:crypto";
import { randomB64url } from "../jose/encoding";
import type { Jwk } from "../jose/key-input";
import { x509 } from "../x509/peculiar-x509";
import { splitPemCertificates } from "../x509/pem";
import { x509HashClientId, x509SanDnsClientId } from "./client-id";

const ES256_KEY: webcrypto.EcKeyGenParams & webcrypto.EcdsaParams = {
  name: "ECDSA",
  namedCurve: "P-256",
  hash: "SHA-256",
};

export interface VerifierCertificate {
  /** The leaf certificate (the request-object signer), PEM. */
  leafCertificatePem: string;
  /** Leaf first, then the CA: what an operator would upload elsewhere. */
  certificateChainPem: string;
  /** The CA (trust anchor) certificate, PEM. Wallets configure it as trusted; it never goes into `x5c`. */
  caCertificatePem: string;
  /** Standard base64 DER of the leaf. */
  leafDer: string;
  /** `x5c` JOSE header value: the chain without the trust anchor (HAIP), i.e. `[leafDer]`. */
  x5c: string[];
  /** The leaf's private key (ES256 / P-256) as a JWK, for signing request objects. Secret. */
  privateKeyJwk: Jwk;
  /**
   * The CA's private key as a JWK. Secret. Keep it only if leaf certificates are to be re-issued from it;
   * otherwise discard it.
   */
  caPrivateKeyJwk: Jwk;
  dnsName: string;
  clientIds: { x509Hash: string; x509SanDns: string };
  notBefore: Date;
  notAfter: Date;
}

export interface GenerateVerifierCertificateOptions {
  /** The verifier's DNS name, placed in the leaf's `dNSName` SAN (and CN). */
  dnsName: string;
  /** Subject organisation (O=) for both certificates. */
  organisationName?: string;
  validityDays?: number;
  caValidityDays?: number;
  now?: Date;
}

function serialNumber(): string {
  // 16 random bytes, positive (top bit clear).
  const hex = Buffer.from(randomB64url(16), "base64url").toString("hex");
  return `${((Number.parseInt(hex.slice(0, 2), 16) & 0x7f) | 0x01).toString(16).padStart(2, "0")}${hex.slice(2)}`;
}

function escapeRdn(value: string): string {
  return value.replace(/([,+"\\<>;=])/g, "\\$1");
}

async function exportPrivateJwk(key: webcrypto.CryptoKey): Promise<Jwk> {
  const jwk = (await globalThis.crypto.subtle.exportKey("jwk", key)) as Jwk;
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, d: jwk.d };
}

/**
 * Generates a verifier certificate chain: an ES256 CA (self-signed, `cA`, pathLen 0) and a leaf signed by
 * it with a `dNSName` SAN, key usage `digitalSignature`. `x5c` holds the leaf only, since HAIP forbids the
 * trust anchor in `x5c` and a self-signed signer.
 */
export async function generateVerifierCertificate(
  options: GenerateVerifierCertificateOptions,
): Promise<VerifierCertificate> {
  const dnsName = x509SanDnsClientId(options.dnsName).slice("x509_san_dns:".length);
  const notBefore = new Date((options.now ?? new Date()).getTime() - 60_000);
  const day = 86_400_000;
  const notAfter = new Date(notBefore.getTime() + (options.validityDays ?? 365) * day);
  const caNotAfter = new Date(notBefore.getTime() + (options.caValidityDays ?? 3650) * day);
  const org = options.organisationName ? `, O=${escapeRdn(options.organisationName)}` : "";

  const [caKeys, leafKeys] = await Promise.all([
    globalThis.crypto.subtle.generateKey(ES256_KEY, true, ["sign", "verify"]),
    globalThis.crypto.subtle.generateKey(ES256_KEY, true, ["sign", "verify"]),
  ]);

  const caName = `CN=${escapeRdn(`${dnsName} verifier CA`)}${org}`;
  const caCert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: caName,
    notBefore,
    notAfter: caNotAfter,
    signingAlgorithm: ES256_KEY,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });

  const leafCert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: `CN=${escapeRdn(dnsName)}${org}`,
    issuer: caCert.subject,
    notBefore,
    notAfter: notAfter < caNotAfter ? notAfter : caNotAfter,
    signingAlgorithm: ES256_KEY,
    publicKey: leafKeys.publicKey,
    signingKey: caKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.SubjectAlternativeNameExtension([{ type: "dns", value: dnsName }]),
      await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });

  const leafDer = Buffer.from(leafCert.rawData).toString("base64");
  const leafPem = leafCert.toString("pem");
  const caPem = caCert.toString("pem");
  return {
    leafCertificatePem: leafPem,
    caCertificatePem: caPem,
    certificateChainPem: `${leafPem}\n${caPem}\n`,
    leafDer,
    x5c: [leafDer],
    privateKeyJwk: await exportPrivateJwk(leafKeys.privateKey),
    caPrivateKeyJwk: await exportPrivateJwk(caKeys.privateKey),
    dnsName,
    clientIds: { x509Hash: x509HashClientId(leafDer), x509SanDns: `x509_san_dns:${dnsName}` },
    notBefore: leafCert.notBefore,
    notAfter: leafCert.notAfter,
  };
}

export class InvalidVerifierCertificateError extends Error {
  override readonly name = "InvalidVerifierCertificateError";
  constructor(readonly issues: string[]) {
    super(`invalid verifier certificate: ${issues.join("; ")}`);
  }
}

export interface ParsedVerifierCertificate {
  /** `x5c` header value: leaf first, trust anchor (a trailing self-signed CA) removed. */
  x5c: string[];
  leafDer: string;
  leafCertificatePem: string;
  dnsNames: string[];
  /** The private key given, as a JWK; null when the key is held elsewhere (`publicJwk` was given). */
  privateKeyJwk: Jwk | null;
  clientIds: { x509Hash: string; x509SanDns: string };
  notBefore: Date;
  notAfter: Date;
  /** Non-fatal findings, e.g. a self-signed leaf (works, but is not HAIP compliant). */
  warnings: string[];
}

export { splitPemCertificates };

/** `dNSName` entries of a certificate's subjectAltName. */
export function certificateDnsNames(cert: X509Certificate): string[] {
  const san = cert.subjectAltName;
  if (!san) return [];
  const names: string[] = [];
  for (const entry of san.split(/,\s*/)) {
    if (entry.startsWith("DNS:"))
      names.push(
        entry
          .slice(4)
          .replace(/^"(.*)"$/, "$1")
          .toLowerCase(),
      );
  }
  return names;
}

function isSelfSigned(cert: X509Certificate): boolean {
  return cert.checkIssued(cert) && cert.verify(cert.publicKey);
}

/**
 * Validates an uploaded verifier certificate chain (PEM, leaf first) and its private key (PEM, PKCS#8 or
 * SEC1, or a JWK): parsable, leaf is P-256 (ES256), key matches the leaf, leaf has a `dNSName` SAN,
 * each certificate is issued and signed by the next, and the leaf is currently valid. A trailing
 * self-signed CA is dropped from `x5c` (HAIP: no trust anchor in `x5c`).
 */
export function parseVerifierCertificate(
  input: {
    certificateChainPem: string;
    now?: Date;
  } & (
    | { privateKey: string | Jwk }
    /** A key held elsewhere (an HSM): the leaf must carry this public key. */
    | { publicJwk: Jwk }
  ),
): ParsedVerifierCertificate {
  const issues: string[] = [];
  const warnings: string[] = [];
  // The chain and the key are read independently, so a request with both wrong hears of both.
  const pems = splitPemCertificates(input.certificateChainPem);
  let certs: X509Certificate[] = [];
  if (pems.length === 0) issues.push("no PEM certificate found");
  else {
    try {
      certs = pems.map((pem) => new X509Certificate(pem));
    } catch (cause) {
      issues.push(`unparsable certificate: ${(cause as Error).message}`);
    }
  }
  let privateKey: KeyObject | undefined;
  let publicKey: KeyObject | undefined;
  try {
    if ("publicJwk" in input) {
      const { kty, crv, x, y } = input.publicJwk;
      publicKey = createPublicKey({ key: { kty, crv, x, y }, format: "jwk" });
    } else
      privateKey =
        typeof input.privateKey === "string"
          ? createPrivateKey(input.privateKey)
          : createPrivateKey({ key: input.privateKey, format: "jwk" });
  } catch (cause) {
    issues.push(
      "publicJwk" in input
        ? `unparsable public key: ${(cause as Error).message}`
        : `unparsable private key: ${(cause as Error).message}`,
    );
  }
  const leaf = certs[0];
  if (!leaf || !(privateKey ?? publicKey)) throw new InvalidVerifierCertificateError(issues);
  const details = leaf.publicKey.asymmetricKeyDetails;
  if (leaf.publicKey.asymmetricKeyType !== "ec" || details?.namedCurve !== "prime256v1") {
    issues.push("leaf key must be an EC P-256 key (ES256)");
  } else if (privateKey && !leaf.checkPrivateKey(privateKey)) {
    issues.push("private key does not match the leaf certificate");
  } else if (publicKey && !leaf.publicKey.equals(publicKey)) {
    issues.push("the key held for this certificate is not the leaf certificate's public key");
  }

  const dnsNames = certificateDnsNames(leaf);
  if (dnsNames.length === 0) issues.push("leaf certificate has no dNSName subjectAltName");

  const now = input.now ?? new Date();
  if (new Date(leaf.validFrom) > now) issues.push("leaf certificate is not yet valid");
  if (new Date(leaf.validTo) < now) issues.push("leaf certificate has expired");
  if (leaf.ca) issues.push("leaf certificate must not be a CA certificate");

  for (let i = 0; i + 1 < certs.length; i++) {
    const cert = certs[i]!;
    const issuer = certs[i + 1]!;
    if (!cert.checkIssued(issuer) || !cert.verify(issuer.publicKey)) {
      issues.push(
        `certificate ${i} is not issued by certificate ${i + 1} (chain must be ordered leaf first)`,
      );
    }
  }
  if (issues.length > 0) throw new InvalidVerifierCertificateError(issues);

  let chain = certs;
  if (certs.length > 1 && isSelfSigned(certs[certs.length - 1]!)) chain = certs.slice(0, -1);
  if (isSelfSigned(leaf)) warnings.push("leaf certificate is self-signed (not HAIP compliant)");

  const leafDer = leaf.raw.toString("base64");
  const jwk = privateKey ? (privateKey.export({ format: "jwk" }) as Jwk) : null;
  const dnsName = dnsNames[0]!;
  return {
    x5c: chain.map((c) => c.raw.toString("base64")),
    leafDer,
    leafCertificatePem: leaf.toString(),
    dnsNames,
    privateKeyJwk: jwk ? { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, d: jwk.d } : null,
    clientIds: { x509Hash: x509HashClientId(leafDer), x509SanDns: `x509_san_dns:${dnsName}` },
    notBefore: new Date(leaf.validFrom),
    notAfter: new Date(leaf.validTo),
    warnings,
  };
}
