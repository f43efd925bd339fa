// Access-certificate requests and verifier certificates for a key held elsewhere (an HSM): the CSR is
// signed through an `Es256Signer`, and the certificate is checked against the held key's public key.
import { execFileSync } from "node:child_process";
import { generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Es256Signer } from "../jose/jws";
import type { Jwk } from "../jose/key-input";
import { createAccessCertificateRequest } from "./access-certificate";
import { createTestAccessCa } from "./relying-party-test-authorities";
import { InvalidVerifierCertificateError, parseVerifierCertificate } from "./verifier-certificate";

const subject = { organisationName: "Webshop Oy", organisationIdentifier: "VATFI-12345678", country: "FI" };

/** A P-256 key whose private part only this signer uses (as a token would), and how often it signed. */
function heldKey() {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const { kty, crv, x, y } = publicKey.export({ format: "jwk" });
  const signer = {
    calls: 0,
    async signEs256(input: Uint8Array) {
      signer.calls++;
      return new Uint8Array(sign("sha256", input, { key: privateKey, dsaEncoding: "ieee-p1363" }));
    },
  } satisfies Es256Signer & { calls: number };
  return { signer, publicJwk: { kty, crv, x, y } as Jwk };
}

describe("access certificate request for a held key", () => {
  it("is signed through the signer (OpenSSL verifies it), carries the held public key and returns no private key", async () => {
    const held = heldKey();
    const req = await createAccessCertificateRequest({
      ...subject,
      dnsNames: ["verifier.example.com"],
      heldKey: { signingKey: held.signer, publicJwk: held.publicJwk },
    });
    expect(held.signer.calls).toBe(1);
    expect(req.privateKeyJwk).toBeNull();
    const text = execFileSync("openssl", ["req", "-noout", "-verify", "-pubkey"], {
      input: req.csrPem,
      stdio: ["pipe", "pipe", "pipe"],
    }).toString();
    expect(text).toContain("BEGIN PUBLIC KEY");
    const ca = await createTestAccessCa();
    const chain = await ca.issue(req.csrPem);
    const parsed = parseVerifierCertificate({ certificateChainPem: chain, publicJwk: held.publicJwk });
    expect(parsed.privateKeyJwk).toBeNull();
    expect(parsed.dnsNames).toEqual(["verifier.example.com"]);
  });

  it("parseVerifierCertificate refuses a leaf that does not carry the held key", async () => {
    const held = heldKey();
    const other = heldKey();
    const req = await createAccessCertificateRequest({
      ...subject,
      dnsNames: ["verifier.example.com"],
      heldKey: { signingKey: held.signer, publicJwk: held.publicJwk },
    });
    const chain = await (await createTestAccessCa()).issue(req.csrPem);
    expect(() =>
      parseVerifierCertificate({ certificateChainPem: chain, publicJwk: other.publicJwk }),
    ).toThrow(InvalidVerifierCertificateError);
  });
});
