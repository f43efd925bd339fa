import { type webcrypto, X509Certificate } from "node:crypto";
import type { JWK } from "jose";
import { describe, expect, it } from "vitest";
import { x509 } from "../x509/peculiar-x509";
import {
  certificateNamesIssuer,
  createIssuerCertificateRequest,
  InvalidIssuerCertificateError,
  parseIssuerCertificateChain,
} from "./issuer-certificate";

const ES256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const DAY = 86_400_000;
const ISS = "https://platform.example/issuers/iss_01";

type Keys = webcrypto.CryptoKeyPair;
const newKeys = (): Promise<Keys> =>
  crypto.subtle.generateKey(ES256, true, ["sign", "verify"]) as Promise<Keys>;
const publicJwkOf = async (keys: Keys) => (await crypto.subtle.exportKey("jwk", keys.publicKey)) as JWK;

interface Options {
  ca?: boolean;
  usages?: number;
  sans?: x509.JsonGeneralNames;
  notBefore?: Date;
  notAfter?: Date;
}

let serial = 1;
/** A certificate for `subjectKeys`, signed by `issuerKeys` (itself when they are the same pair). */
async function certificate(
  subject: string,
  subjectKeys: Keys,
  issuer: { name: string; keys: Keys },
  options: Options = {},
): Promise<string> {
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: (++serial).toString(16).padStart(2, "0"),
    subject,
    issuer: issuer.name,
    notBefore: options.notBefore ?? new Date(Date.now() - DAY),
    notAfter: options.notAfter ?? new Date(Date.now() + 30 * DAY),
    signingAlgorithm: ES256,
    publicKey: subjectKeys.publicKey,
    signingKey: issuer.keys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(options.ca ?? false, undefined, true),
      new x509.KeyUsagesExtension(
        options.usages ?? (options.ca ? x509.KeyUsageFlags.keyCertSign : x509.KeyUsageFlags.digitalSignature),
        true,
      ),
      ...(options.ca
        ? []
        : [new x509.SubjectAlternativeNameExtension(options.sans ?? [{ type: "url", value: ISS }])]),
    ],
  });
  return cert.toString("pem");
}

async function pki() {
  const root = { name: "CN=Root", keys: await newKeys() };
  const intermediate = { name: "CN=Intermediate", keys: await newKeys() };
  const leafKeys = await newKeys();
  return {
    root,
    intermediate,
    leafKeys,
    rootPem: await certificate(root.name, root.keys, root, { ca: true }),
    intermediatePem: await certificate(intermediate.name, intermediate.keys, root, { ca: true }),
    publicJwk: await publicJwkOf(leafKeys),
  };
}

function problems(certificateChainPem: string, publicJwk: JWK): string {
  try {
    parseIssuerCertificateChain({ certificateChainPem, publicJwk, credentialIssuer: ISS });
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidIssuerCertificateError);
    return (error as InvalidIssuerCertificateError).issues.join(" | ");
  }
  throw new Error("the chain was accepted");
}

describe("parseIssuerCertificateChain", () => {
  it("accepts leaf → intermediate → root, leaving the root out of x5c; the chain is valid as its shortest member", async () => {
    const p = await pki();
    const intermediateEnds = new Date(Date.now() + 10 * DAY);
    const intermediatePem = await certificate(p.intermediate.name, p.intermediate.keys, p.root, {
      ca: true,
      notAfter: intermediateEnds,
    });
    const leafPem = await certificate("CN=Issuer", p.leafKeys, p.intermediate);
    const parsed = parseIssuerCertificateChain({
      certificateChainPem: `${leafPem}\n${intermediatePem}\n${p.rootPem}`,
      publicJwk: p.publicJwk,
      credentialIssuer: ISS,
    });
    const der = (pem: string) => new X509Certificate(pem).raw.toString("base64");
    expect(parsed.x5c).toEqual([der(leafPem), der(intermediatePem)]);
    expect(parsed.notAfter.getTime()).toBe(Math.floor(intermediateEnds.getTime() / 1000) * 1000);
    // Without the root, the chain is sent as given.
    const withoutRoot = parseIssuerCertificateChain({
      certificateChainPem: `${leafPem}\n${intermediatePem}`,
      publicJwk: p.publicJwk,
      credentialIssuer: ISS,
    });
    expect(withoutRoot.x5c).toHaveLength(2);
  });

  it("refuses a self-signed leaf (HAIP), one without digitalSignature, and one naming the issuer by host only", async () => {
    const p = await pki();
    const self = await certificate("CN=Issuer", p.leafKeys, { name: "CN=Issuer", keys: p.leafKeys });
    expect(problems(self, p.publicJwk)).toMatch(/must not be self-signed/);
    const noSigning = await certificate("CN=Issuer", p.leafKeys, p.root, {
      usages: x509.KeyUsageFlags.keyEncipherment,
    });
    expect(problems(noSigning, p.publicJwk)).toMatch(/does not include digitalSignature/);
    const byHost = await certificate("CN=Issuer", p.leafKeys, p.root, {
      sans: [{ type: "dns", value: "platform.example" }],
    });
    expect(problems(byHost, p.publicJwk)).toMatch(
      /must name https:\/\/platform\.example\/issuers\/iss_01 as a URI/,
    );
  });

  it("refuses a non-CA or expired intermediate, and another key's certificate", async () => {
    const p = await pki();
    const leafPem = await certificate("CN=Issuer", p.leafKeys, p.intermediate);
    const notCa = await certificate(p.intermediate.name, p.intermediate.keys, p.root, {
      usages: x509.KeyUsageFlags.keyCertSign,
    });
    expect(problems(`${leafPem}\n${notCa}`, p.publicJwk)).toMatch(
      /certificate 1 issues certificate 0 but is not a CA/,
    );
    const expired = await certificate(p.intermediate.name, p.intermediate.keys, p.root, {
      ca: true,
      notBefore: new Date(Date.now() - 3 * DAY),
      notAfter: new Date(Date.now() - DAY),
    });
    expect(problems(`${leafPem}\n${expired}`, p.publicJwk)).toMatch(/certificate 1 has expired/);
    expect(problems(`${leafPem}\n${p.intermediatePem}`, await publicJwkOf(await newKeys()))).toMatch(
      /not for the issuer's current signing key/,
    );
  });

  it("refuses a leaf key that is not P-256 with a problem, not an exception", async () => {
    const p = await pki();
    const rsa = (await crypto.subtle.generateKey(
      {
        name: "RSASSA-PKCS1-v1_5",
        modulusLength: 2048,
        publicExponent: new Uint8Array([1, 0, 1]),
        hash: "SHA-256",
      },
      true,
      ["sign", "verify"],
    )) as webcrypto.CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: "7f",
      subject: "CN=Issuer",
      issuer: p.root.name,
      notBefore: new Date(Date.now() - DAY),
      notAfter: new Date(Date.now() + DAY),
      signingAlgorithm: ES256,
      publicKey: rsa.publicKey,
      signingKey: p.root.keys.privateKey,
      extensions: [new x509.SubjectAlternativeNameExtension([{ type: "url", value: ISS }])],
    });
    expect(problems(cert.toString("pem"), p.publicJwk)).toMatch(/must be an EC P-256 key/);
  });
});

describe("createIssuerCertificateRequest", () => {
  it("asks for the issuer identifier as a URI name and digitalSignature, with names cut to 64 characters", async () => {
    const keys = await newKeys();
    const privateJwk = (await crypto.subtle.exportKey("jwk", keys.privateKey)) as JWK;
    const pem = await createIssuerCertificateRequest({
      privateJwk,
      commonName: "x".repeat(80),
      organisationName: "Acme",
      credentialIssuer: ISS,
    });
    const csr = new x509.Pkcs10CertificateRequest(pem);
    expect(await csr.verify()).toBe(true);
    expect(csr.subject).toBe(`CN=${"x".repeat(64)}, O=Acme`);
    const extension = (oid: string) => csr.extensions.find((e) => e.type === oid)!.rawData;
    expect(new x509.SubjectAlternativeNameExtension(extension("2.5.29.17")).names.toJSON()).toEqual([
      { type: "url", value: ISS },
    ]);
    expect(new x509.KeyUsagesExtension(extension("2.5.29.15")).usages).toBe(
      x509.KeyUsageFlags.digitalSignature,
    );
  });
});

describe("certificateNamesIssuer", () => {
  it("matches a URI name exactly, or the host of the issuer as a DNS name", async () => {
    const p = await pki();
    const byUri = new X509Certificate(await certificate("CN=I", p.leafKeys, p.root));
    expect(certificateNamesIssuer(byUri, ISS)).toBe(true);
    expect(certificateNamesIssuer(byUri, `${ISS}/other`)).toBe(false);
    const byHost = new X509Certificate(
      await certificate("CN=I", p.leafKeys, p.root, { sans: [{ type: "dns", value: "platform.example" }] }),
    );
    expect(certificateNamesIssuer(byHost, ISS)).toBe(true);
    expect(certificateNamesIssuer(byHost, "https://elsewhere.example/x")).toBe(false);
    expect(certificateNamesIssuer(byHost, undefined)).toBe(false);
  });
});
