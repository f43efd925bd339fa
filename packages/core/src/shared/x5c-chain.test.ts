import { createTestCertificateAuthority } from "@cred/oid4vc/test-ca";
import { x509 } from "@cred/oid4vc/x509";
import { describe, expect, it } from "vitest";
import { keyUnderTrustedRoots, x5cChainKey } from "./x5c-chain";

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
