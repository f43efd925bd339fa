import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Jwk } from "../jose/key-input";
import { x509 } from "../x509/peculiar-x509";
import { parseDcqlQuery, policyToDcqlQuery } from "./dcql";
import { createSdJwtVcCredentialVerifier } from "./sd-jwt-vc-credential-verifier";
import { issueTestSdJwtVc } from "./test-sd-jwt";
import { createTestPresentation } from "./test-wallet";
import { certificateAki, matchesTrustedAuthorities } from "./trusted-authorities";
import { generateVerifierCertificate } from "./verifier-certificate";
import { verifyVpToken } from "./verify-presentation";

function ecKeyPair(): { privateJwk: Jwk; publicJwk: Jwk } {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return {
    privateJwk: privateKey.export({ format: "jwk" }) as Jwk,
    publicJwk: publicKey.export({ format: "jwk" }) as Jwk,
  };
}

const VCT = "https://issuer.example/pid";
const clientId = "x509_hash:abc";
const nonce = "n-0S6_WzA2Mj-0123456789abcdef";

describe("createSdJwtVcCredentialVerifier (with ../sd-jwt-vc verifySdJwtVc)", async () => {
  const issuer = ecKeyPair();
  const holder = ecKeyPair();
  const credential = await issueTestSdJwtVc({
    issuerPrivateKey: issuer.privateJwk,
    iss: "https://issuer.example",
    vct: VCT,
    disclosable: { given_name: "Erika", family_name: "Mustermann" },
    holderPublicJwk: holder.publicJwk,
  });
  const query = policyToDcqlQuery({
    credentials: [
      {
        id: "pid",
        credentialTypes: [VCT],
        requiredClaims: [["given_name"]],
        optionalClaims: [],
        holderBindingRequired: true,
      },
    ],
    credentialSets: null,
  });
  const present = (overrides?: Record<string, unknown>, aud = clientId) =>
    createTestPresentation({
      credential,
      disclose: () => true,
      holderPrivateKey: holder.privateJwk,
      aud,
      nonce,
      iat: Math.floor(Date.now() / 1000),
      ...(overrides ? { overrides } : {}),
    });
  const verifyCredential = createSdJwtVcCredentialVerifier({
    clientId,
    nonce,
    resolveIssuerKey: async (_h, payload) =>
      payload.iss === "https://issuer.example" ? issuer.publicJwk : null,
  });

  it("verifies a presentation end to end and minimises claims", async () => {
    const result = await verifyVpToken({ query, vpToken: { pid: [await present()] }, verifyCredential });
    expect(result.outcome).toBe("verified");
    expect(result.credentials[0]).toMatchObject({
      credentialType: VCT,
      issuer: "https://issuer.example",
      claims: { given_name: "Erika" },
      checks: { issuerSignature: "passed", holderBinding: "passed" },
    });
  });

  it("maps KB-JWT failures to reasons", async () => {
    const wrongNonce = await verifyVpToken({
      query,
      vpToken: { pid: [await present({ nonce: "x" })] },
      verifyCredential,
    });
    expect(wrongNonce.reasons.map((r) => r.code)).toContain("kb_nonce_mismatch");
    const wrongAud = await verifyVpToken({
      query,
      vpToken: { pid: [await present(undefined, "x509_hash:other")] },
      verifyCredential,
    });
    expect(wrongAud.reasons.map((r) => r.code)).toContain("kb_audience_mismatch");
  });

  it("runs policy checks and can reject", async () => {
    const withPolicy = createSdJwtVcCredentialVerifier({
      clientId,
      nonce,
      resolveIssuerKey: async () => issuer.publicJwk,
      policyChecks: async () => ({
        ok: false,
        reasons: [{ code: "credential_revoked", message: "revoked" }],
      }),
    });
    const result = await verifyVpToken({
      query,
      vpToken: { pid: [await present()] },
      verifyCredential: withPolicy,
    });
    expect(result.reasons[0]?.code).toBe("credential_revoked");
  });

  it("enforces trusted_authorities when asked (the credential has no x5c)", async () => {
    const q = parseDcqlQuery({
      credentials: [{ ...query.credentials[0], trusted_authorities: [{ type: "aki", values: ["abc"] }] }],
    });
    const strict = createSdJwtVcCredentialVerifier({
      clientId,
      nonce,
      resolveIssuerKey: async () => issuer.publicJwk,
      enforceTrustedAuthorities: true,
    });
    const result = await verifyVpToken({
      query: q,
      vpToken: { pid: [await present()] },
      verifyCredential: strict,
    });
    expect(result.reasons[0]?.code).toBe("untrusted_authority");
  });
});

describe("matchesTrustedAuthorities", async () => {
  const chain = await generateVerifierCertificate({ dnsName: "issuer.example" });
  const ca = new x509.X509Certificate(chain.caCertificatePem);
  const caSki = Buffer.from(ca.getExtension(x509.SubjectKeyIdentifierExtension)!.keyId, "hex").toString(
    "base64url",
  );

  it("reads the leaf's AKI (= the CA's SKI) as base64url", () => {
    expect(certificateAki(chain.leafDer)).toBe(caSki);
    expect(certificateAki("bm90IGEgY2VydA==")).toBeNull();
  });

  it("matches aki values against the chain", () => {
    expect(matchesTrustedAuthorities(chain.x5c, [{ type: "aki", values: ["other", caSki] }])).toBe(true);
    expect(matchesTrustedAuthorities(chain.x5c, [{ type: "aki", values: ["other"] }])).toBe(false);
    expect(matchesTrustedAuthorities(chain.x5c, [{ type: "etsi_tl", values: [caSki] }])).toBe(false);
    expect(matchesTrustedAuthorities(undefined, [{ type: "aki", values: [caSki] }])).toBe(false);
    expect(matchesTrustedAuthorities(chain.x5c, undefined)).toBe(true);
  });
});
