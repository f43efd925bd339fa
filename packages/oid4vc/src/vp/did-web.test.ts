import { describe, expect, it } from "vitest";
import { jwkThumbprintKid } from "../jose/jwk";
import { didWebDocument, didWebDocumentUrl, didWebOf, didWebVerificationMethod } from "./did-web";
import { generateVerifierCertificate } from "./verifier-certificate";

/** did:web method specification §3.1 (Create) and §3.2 (Read), with its own examples. */
describe("did:web", () => {
  it("the specification's examples: DID → document URL", () => {
    expect(didWebDocumentUrl("did:web:w3c-ccg.github.io")).toBe(
      "https://w3c-ccg.github.io/.well-known/did.json",
    );
    expect(didWebDocumentUrl("did:web:w3c-ccg.github.io:user:alice")).toBe(
      "https://w3c-ccg.github.io/user/alice/did.json",
    );
    expect(didWebDocumentUrl("did:web:example.com%3A3000:user:alice")).toBe(
      "https://example.com:3000/user/alice/did.json",
    );
    expect(() => didWebDocumentUrl("did:jwk:abc")).toThrow(/not a did:web/);
  });

  it("didWebOf: host with its port percent-encoded, the base URL's path, then the segments", () => {
    expect(didWebOf("https://verifier.example", ["verifier", "ten_1", "sandbox"])).toBe(
      "did:web:verifier.example:verifier:ten_1:sandbox",
    );
    expect(didWebOf("http://127.0.0.1:3000/", ["verifier", "t", "production"])).toBe(
      "did:web:127.0.0.1%3A3000:verifier:t:production",
    );
    expect(didWebOf("https://Example.COM/platform/", ["verifier"])).toBe(
      "did:web:example.com:platform:verifier",
    );
    expect(didWebDocumentUrl(didWebOf("https://example.com:8443/api", ["verifier", "t", "sandbox"]))).toBe(
      "https://example.com:8443/api/verifier/t/sandbox/did.json",
    );
    expect(() => didWebOf("https://example.com", ["a:b"])).toThrow(/URL-safe/);
  });

  it("the document: one JsonWebKey2020 method, id = did#JWK thumbprint, public members only", async () => {
    const { privateKeyJwk } = await generateVerifierCertificate({ dnsName: "verifier.example" });
    const { d: _d, ...publicJwk } = privateKeyJwk;
    const did = "did:web:verifier.example:verifier:t:sandbox";
    const document = didWebDocument(did, { ...publicJwk, kid: "ignored", alg: "ES256" });
    const id = `${did}#${jwkThumbprintKid(publicJwk)}`;
    expect(didWebVerificationMethod(did, publicJwk)).toBe(id);
    expect(document).toEqual({
      "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/jws-2020/v1"],
      id: did,
      verificationMethod: [
        {
          id,
          type: "JsonWebKey2020",
          controller: did,
          publicKeyJwk: { kty: "EC", crv: "P-256", x: publicJwk.x, y: publicJwk.y },
        },
      ],
      assertionMethod: [id],
      authentication: [id],
    });
    expect(() => didWebDocument(did, privateKeyJwk.kty === "EC" ? { kty: "OKP" } : {})).toThrow(/P-256/);
  });
});
