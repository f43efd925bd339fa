// Test helpers: an access CA that issues WRPACs from CSRs and a registrar that signs WRPRCs, each with a
// root of its own, for tests only (keys live in memory and are thrown away).
import type { webcrypto } from "node:crypto";
import { SignJWT } from "jose";
import { x509 } from "../x509/peculiar-x509";
import { REGISTRATION_CERTIFICATE_TYP } from "./registration-certificate";

const ES256_KEY: webcrypto.EcKeyGenParams & webcrypto.EcdsaParams = {
  name: "ECDSA",
  namedCurve: "P-256",
  hash: "SHA-256",
};
const DAY = 86_400_000;

let serial = 0x1000;
const nextSerial = () => (serial++).toString(16).padStart(8, "0");

interface TestCa {
  root: x509.X509Certificate;
  rootKeys: webcrypto.CryptoKeyPair;
  intermediate: x509.X509Certificate;
  intermediateKeys: webcrypto.CryptoKeyPair;
}

async function testCa(name: string): Promise<TestCa> {
  const rootKeys = await globalThis.crypto.subtle.generateKey(ES256_KEY, true, ["sign", "verify"]);
  const intermediateKeys = await globalThis.crypto.subtle.generateKey(ES256_KEY, true, ["sign", "verify"]);
  const notBefore = new Date(Date.now() - 60_000);
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: nextSerial(),
    name: `CN=${name} root, C=FI`,
    notBefore,
    notAfter: new Date(notBefore.getTime() + 3650 * DAY),
    signingAlgorithm: ES256_KEY,
    keys: rootKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 1, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey),
    ],
  });
  const intermediate = await x509.X509CertificateGenerator.create({
    serialNumber: nextSerial(),
    subject: `CN=${name}, C=FI`,
    issuer: root.subject,
    notBefore,
    notAfter: new Date(notBefore.getTime() + 1825 * DAY),
    signingAlgorithm: ES256_KEY,
    publicKey: intermediateKeys.publicKey,
    signingKey: rootKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(intermediateKeys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(rootKeys.publicKey),
    ],
  });
  return { root, rootKeys, intermediate, intermediateKeys };
}

export interface TestAccessCa {
  /** The root wallets (and the import) trust, PEM. */
  rootPem: string;
  /** Issues an access certificate from a CSR: returns the chain PEM, leaf then the issuing CA (no root). */
  issue(csrPem: string, options?: { validityDays?: number; notBefore?: Date }): Promise<string>;
}

/** A two-level access CA (root → issuing CA) that copies the CSR's subject and requested extensions. */
export async function createTestAccessCa(): Promise<TestAccessCa> {
  const ca = await testCa("Test WRPAC provider");
  return {
    rootPem: ca.root.toString("pem"),
    async issue(csrPem, options = {}) {
      const csr = new x509.Pkcs10CertificateRequest(csrPem);
      const notBefore = options.notBefore ?? new Date(Date.now() - 60_000);
      const leaf = await x509.X509CertificateGenerator.create({
        serialNumber: nextSerial(),
        subject: csr.subjectName,
        issuer: ca.intermediate.subjectName,
        notBefore,
        notAfter: new Date(notBefore.getTime() + (options.validityDays ?? 365) * DAY),
        signingAlgorithm: ES256_KEY,
        publicKey: await csr.publicKey.export(ES256_KEY, ["verify"]),
        signingKey: ca.intermediateKeys.privateKey,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          ...csr.extensions,
          await x509.AuthorityKeyIdentifierExtension.create(ca.intermediateKeys.publicKey),
        ],
      });
      return `${leaf.toString("pem")}\n${ca.intermediate.toString("pem")}\n`;
    },
  };
}

export interface TestRegistrar {
  rootPem: string;
  /** Signs a WRPRC payload (`iat` added when missing) with `x5c` = [registrar leaf, issuing CA]. */
  sign(payload: Record<string, unknown>, options?: { typ?: string }): Promise<string>;
}

/** A registrar whose signing certificate chains to a root of its own. */
export async function createTestRegistrar(): Promise<TestRegistrar> {
  const ca = await testCa("Test WRPRC provider");
  const signerKeys = await globalThis.crypto.subtle.generateKey(ES256_KEY, true, ["sign", "verify"]);
  const notBefore = new Date(Date.now() - 60_000);
  const signer = await x509.X509CertificateGenerator.create({
    serialNumber: nextSerial(),
    subject: "CN=Test registrar signer, C=FI",
    issuer: ca.intermediate.subjectName,
    notBefore,
    notAfter: new Date(notBefore.getTime() + 365 * DAY),
    signingAlgorithm: ES256_KEY,
    publicKey: signerKeys.publicKey,
    signingKey: ca.intermediateKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      await x509.AuthorityKeyIdentifierExtension.create(ca.intermediateKeys.publicKey),
    ],
  });
  const b64 = (c: x509.X509Certificate) => Buffer.from(c.rawData).toString("base64");
  return {
    rootPem: ca.root.toString("pem"),
    async sign(payload, options = {}) {
      return new SignJWT({ iat: Math.floor(Date.now() / 1000), ...payload })
        .setProtectedHeader({
          alg: "ES256",
          typ: options.typ ?? REGISTRATION_CERTIFICATE_TYP,
          x5c: [b64(signer), b64(ca.intermediate)],
        })
        .sign(signerKeys.privateKey);
    },
  };
}
