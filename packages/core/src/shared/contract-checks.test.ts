import { zAllowedRedirectUris, zWalletAttestation } from "@cred/contracts/issuers";
import { serverChecksInstalled } from "@cred/contracts/server-checks";
import { createTestCertificateAuthority } from "@cred/oid4vc/test-ca";
import { x509 } from "@cred/oid4vc/x509";
import { describe, expect, it } from "vitest";
import "./contract-checks";

const ES256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const MESSAGE = "Give one PEM-encoded X.509 CA certificate.";

async function leafPem(): Promise<string> {
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: "CN=leaf",
    keys: await globalThis.crypto.subtle.generateKey(ES256, true, ["sign", "verify"]),
    signingAlgorithm: ES256,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: "dns", value: "leaf.example" }])],
  });
  return (await (await createTestCertificateAuthority()).certify(csr.toString("pem"))).leafPem;
}

describe("the server's checks in the contract's schemas", () => {
  it("are installed by loading contract-checks", () => {
    expect(serverChecksInstalled()).toBe(true);
  });

  it("parse certificates: an armoured block that is no certificate, or a leaf, is refused; a CA root is taken", async () => {
    const ca = await createTestCertificateAuthority();
    for (const pem of ["-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----", await leafPem()]) {
      expect(zWalletAttestation.safeParse({ trustedRoots: [pem] }).error?.issues).toEqual([
        expect.objectContaining({ path: ["trustedRoots", 0], message: MESSAGE }),
      ]);
    }
    expect(zWalletAttestation.safeParse({ trustedRoots: [ca.rootPem] }).success).toBe(true);
  });

  it("apply the protocol's redirect URI rules", () => {
    for (const uri of [
      "javascript:alert(1)",
      "http://wallet.example/cb",
      "https://wallet.example/cb?code=1",
    ]) {
      expect(zAllowedRedirectUris.safeParse([uri]).success).toBe(false);
    }
    expect(zAllowedRedirectUris.safeParse(["https://wallet.example/cb", "http://127.0.0.1/cb"]).success).toBe(
      true,
    );
  });
});
