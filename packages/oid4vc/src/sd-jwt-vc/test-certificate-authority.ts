/**
 * A certificate authority for tests and demonstrations (`@cred/oid4vc/test-ca`), as an operator's CA
 * would act on an issuer's certificate signing request. Not used by the service.
 */
import type { webcrypto } from "node:crypto";
import * as pkijs from "pkijs";
import { x509 } from "../x509/peculiar-x509";

const ES256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const DAY = 86_400_000;

export interface CertifyOptions {
  notBefore?: Date;
  notAfter?: Date;
  /** subjectAltName of the certificate; by default the one the request asks for. */
  sans?: x509.JsonGeneralNames;
  /** Makes the certificate a CA (basicConstraints cA, keyCertSign): what an end-entity must not be. */
  ca?: boolean;
}

export interface TestCertificateAuthority {
  /** The self-signed root, PEM: what a relying party pins. */
  rootPem: string;
  /** Certifies the request's key and subject: the leaf alone, and leaf + root as a chain. */
  certify(csrPem: string, options?: CertifyOptions): Promise<{ leafPem: string; chainPem: string }>;
}

/** The subjectAltName a request asks for (found by OID: the class lookup fails across module copies). */
export function requestedNames(csr: x509.Pkcs10CertificateRequest): x509.JsonGeneralNames {
  const raw = csr.extensions.find((e) => e.type === "2.5.29.17");
  if (!raw) throw new Error("the request has no subjectAltName");
  return new x509.SubjectAlternativeNameExtension(raw.rawData).names.toJSON();
}

export async function createTestCertificateAuthority(
  name = "CN=Test Issuing CA",
): Promise<TestCertificateAuthority> {
  const keys = await globalThis.crypto.subtle.generateKey(ES256, true, ["sign", "verify"]);
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 365 * DAY),
    signingAlgorithm: ES256,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
    ],
  });
  const rootPem = root.toString("pem");
  let serial = 1;
  return {
    rootPem,
    async certify(csrPem, options = {}) {
      const csr = new x509.Pkcs10CertificateRequest(csrPem);
      const leaf = await x509.X509CertificateGenerator.create({
        serialNumber: (++serial).toString(16).padStart(2, "0"),
        subject: csr.subject,
        issuer: root.subject,
        notBefore: options.notBefore ?? new Date(Date.now() - 60_000),
        notAfter: options.notAfter ?? new Date(Date.now() + 30 * DAY),
        signingAlgorithm: ES256,
        publicKey: csr.publicKey,
        signingKey: keys.privateKey,
        extensions: [
          new x509.BasicConstraintsExtension(options.ca ?? false, undefined, true),
          new x509.KeyUsagesExtension(
            x509.KeyUsageFlags.digitalSignature | (options.ca ? x509.KeyUsageFlags.keyCertSign : 0),
            true,
          ),
          new x509.SubjectAlternativeNameExtension(options.sans ?? requestedNames(csr)),
        ],
      });
      const leafPem = leaf.toString("pem");
      return { leafPem, chainPem: `${leafPem}\n${rootPem}\n` };
    },
  };
}

/** A name and a P-256 key pair: a CA, an intermediate or an end entity, for `issueTestCertificate`. */
export interface TestParty {
  name: string;
  keys: webcrypto.CryptoKeyPair;
}

export async function testParty(name: string): Promise<TestParty> {
  return { name, keys: await globalThis.crypto.subtle.generateKey(ES256, true, ["sign", "verify"]) };
}

export interface IssueTestCertificateOptions {
  /** Who signs; the certificate is self-signed without one. */
  issuer?: TestParty;
  /** Signs with these keys while naming `issuer` (a forged signature). */
  signingKeys?: webcrypto.CryptoKeyPair;
  /** basicConstraints cA, with `pathLength` as its pathLenConstraint. */
  ca?: boolean;
  pathLength?: number;
  /** keyUsage flags, or null for none; by default keyCertSign + cRLSign for a CA, else digitalSignature. */
  keyUsage?: number | null;
  dnsNames?: string[];
  extensions?: x509.Extension[];
  notBefore?: Date;
  notAfter?: Date;
}

let testSerial = 0;

/**
 * A DER certificate for `subject` with exactly the extensions asked for (critical basicConstraints and
 * keyUsage, optional dNSName SANs and more), valid from a day ago for 30 days unless told: for tests of
 * path validation, where each certificate of a hierarchy needs shaping on its own.
 */
export async function issueTestCertificate(
  subject: TestParty,
  options: IssueTestCertificateOptions = {},
): Promise<Uint8Array<ArrayBuffer>> {
  const ca = options.ca ?? false;
  const keyUsage =
    options.keyUsage === undefined
      ? ca
        ? x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign
        : x509.KeyUsageFlags.digitalSignature
      : options.keyUsage;
  const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(ca, options.pathLength, true)];
  if (keyUsage !== null) extensions.push(new x509.KeyUsagesExtension(keyUsage, true));
  if (options.dnsNames)
    extensions.push(
      new x509.SubjectAlternativeNameExtension(
        options.dnsNames.map((value) => ({ type: "dns" as const, value })),
      ),
    );
  extensions.push(...(options.extensions ?? []));
  const issuer = options.issuer ?? subject;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: (++testSerial).toString(16).padStart(2, "0"),
    subject: subject.name,
    issuer: issuer.name,
    notBefore: options.notBefore ?? new Date(now - DAY),
    notAfter: options.notAfter ?? new Date(now + 30 * DAY),
    signingAlgorithm: ES256,
    publicKey: subject.keys.publicKey,
    signingKey: (options.signingKeys ?? issuer.keys).privateKey,
    extensions,
  });
  return new Uint8Array(cert.rawData);
}

/** A nameConstraints extension (critical, as RFC 5280 requires) over dNSName subtrees. */
export function nameConstraintsExtension(subtrees: {
  permitted?: string[];
  excluded?: string[];
}): x509.Extension {
  const dns = (names: string[] | undefined) =>
    names?.map((value) => new pkijs.GeneralSubtree({ base: new pkijs.GeneralName({ type: 2, value }) }));
  const value = new pkijs.NameConstraints({
    ...(subtrees.permitted ? { permittedSubtrees: dns(subtrees.permitted) } : {}),
    ...(subtrees.excluded ? { excludedSubtrees: dns(subtrees.excluded) } : {}),
  });
  return new x509.Extension("2.5.29.30", true, value.toSchema().toBER());
}
