import {
  createTestCertificateAuthority,
  issueTestCertificate,
  nameConstraintsExtension,
  testParty,
} from "@cred/oid4vc/test-ca";
import { x509 } from "@cred/oid4vc/x509";
import { describe, expect, it } from "vitest";
import { Caches } from "./caches";
import { x5cChainKey as chainKey, keyUnderTrustedRoots as keyUnder } from "./x5c-chain";

const caches = new Caches();
const x5cChainKey = (x5c: readonly string[], rootPem: string, now: number) =>
  chainKey(caches, x5c, rootPem, now);
const keyUnderTrustedRoots = (header: { x5c?: unknown }, roots: readonly string[], now: number) =>
  keyUnder(caches, header, roots, now);

const ES256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const der = (pem: string) => new x509.X509Certificate(pem).toString("base64");

async function leafUnder(ca: Awaited<ReturnType<typeof createTestCertificateAuthority>>, options = {}) {
  const keys = await globalThis.crypto.subtle.generateKey(ES256, true, ["sign", "verify"]);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: "CN=Attester",
    keys,
    signingAlgorithm: ES256,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: "dns", value: "attester.example" }])],
  });
  return (await ca.certify(csr.toString("pem"), options)).leafPem;
}

describe("x5cChainKey", () => {
  it("takes a leaf issued by the root, alone or followed by the root, and nothing else", async () => {
    const ca = await createTestCertificateAuthority("CN=Chain Test CA");
    const other = await createTestCertificateAuthority("CN=Other CA");
    const leaf = der(await leafUnder(ca));
    const now = Date.now();
    expect(await x5cChainKey([leaf], ca.rootPem, now)).not.toBeNull();
    expect(await x5cChainKey([leaf, der(ca.rootPem)], ca.rootPem, now)).not.toBeNull();
    expect(await x5cChainKey([leaf], other.rootPem, now)).toBeNull();
    expect(await x5cChainKey([der(ca.rootPem)], ca.rootPem, now)).toBeNull();
    expect(await x5cChainKey([der(await leafUnder(ca, { ca: true }))], ca.rootPem, now)).toBeNull();
    const expired = await leafUnder(ca, {
      notBefore: new Date(now - 3 * 86_400_000),
      notAfter: new Date(now - 86_400_000),
    });
    expect(await x5cChainKey([der(expired)], ca.rootPem, now)).toBeNull();
    expect(await x5cChainKey(Array(6).fill(leaf), ca.rootPem, now)).toBeNull();
    expect(await x5cChainKey(["not base64 der"], ca.rootPem, now)).toBeNull();
    expect(await x5cChainKey([leaf], "not a pem", now)).toBeNull();
    // A cached chain is still refused once it has expired.
    expect(await x5cChainKey([leaf], ca.rootPem, now + 400 * 86_400_000)).toBeNull();
  });

  it("holds the chain to RFC 5280: CA key usage, path length, name constraints, critical extensions, leaf key usage", async () => {
    const [root, intermediate, leaf] = await Promise.all(
      ["CN=PKIX Root", "CN=PKIX Intermediate", "CN=PKIX Attester"].map(testParty),
    );
    const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
    const rootPem = new x509.X509Certificate(await issueTestCertificate(root!, { ca: true })).toString("pem");
    const under = { issuer: intermediate!, dnsNames: ["attester.example.com"] };
    const leafDer = b64(await issueTestCertificate(leaf!, under));
    const intermediateDer = b64(await issueTestCertificate(intermediate!, { issuer: root!, ca: true }));
    const now = Date.now();
    expect(await x5cChainKey([leafDer, intermediateDer], rootPem, now)).not.toBeNull();

    const refused = async (chain: string[], anchor = rootPem) =>
      expect(await x5cChainKey(chain, anchor, now)).toBeNull();
    // An intermediate CA without keyCertSign.
    await refused([
      leafDer,
      b64(
        await issueTestCertificate(intermediate!, {
          issuer: root!,
          ca: true,
          keyUsage: x509.KeyUsageFlags.cRLSign,
        }),
      ),
    ]);
    // A root that allows no intermediate.
    await refused(
      [leafDer, intermediateDer],
      new x509.X509Certificate(await issueTestCertificate(root!, { ca: true, pathLength: 0 })).toString(
        "pem",
      ),
    );
    // An intermediate constrained to other names than the leaf's.
    const constrained = await issueTestCertificate(intermediate!, {
      issuer: root!,
      ca: true,
      extensions: [nameConstraintsExtension({ permitted: ["other.example"] })],
    });
    await refused([leafDer, b64(constrained)]);
    // A leaf with an unknown critical extension, or whose key may not sign.
    const critical = new x509.Extension("1.3.6.1.4.1.55555.1.1", true, new Uint8Array([0x05, 0x00]));
    await refused([
      b64(await issueTestCertificate(leaf!, { ...under, extensions: [critical] })),
      intermediateDer,
    ]);
    await refused([
      b64(await issueTestCertificate(leaf!, { ...under, keyUsage: x509.KeyUsageFlags.keyEncipherment })),
      intermediateDer,
    ]);
  });

  it("keyUnderTrustedRoots tries each root, and reads only a string x5c", async () => {
    const [a, b] = [
      await createTestCertificateAuthority("CN=A"),
      await createTestCertificateAuthority("CN=B"),
    ];
    const leaf = der(await leafUnder(b));
    expect(await keyUnderTrustedRoots({ x5c: [leaf] }, [a.rootPem, b.rootPem], Date.now())).not.toBeNull();
    expect(await keyUnderTrustedRoots({ x5c: [leaf] }, [a.rootPem], Date.now())).toBeNull();
    expect(await keyUnderTrustedRoots({ x5c: leaf }, [b.rootPem], Date.now())).toBeNull();
    expect(await keyUnderTrustedRoots({ x5c: [1] }, [b.rootPem], Date.now())).toBeNull();
    expect(await keyUnderTrustedRoots({}, [b.rootPem], Date.now())).toBeNull();
  });
});
