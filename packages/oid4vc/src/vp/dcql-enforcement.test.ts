import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import type { Jwk } from "../jose/key-input";
import {
  claimValueMismatches,
  InvalidDcqlQueryError,
  type PolicyCredentialRule,
  parseDcqlQuery,
  policyToDcqlQuery,
} from "./dcql";
import { createSdJwtVcCredentialVerifier } from "./sd-jwt-vc-credential-verifier";
import { issueTestSdJwtVc } from "./test-sd-jwt";
import { createTestPresentation } from "./test-wallet";
import { generateVerifierCertificate } from "./verifier-certificate";
import { type CredentialVerification, verifyVpToken } from "./verify-presentation";

/** DCQL features the verifier enforces on the presentation, not only in the request (OpenID4VP §6). */

const VCT = "https://example.com/pid";
const SD_JWT = "eyJhbGciOiJFUzI1NiJ9.eyJ2Y3QiOiJ4In0.sig~WyJzIiwiZ2l2ZW5fbmFtZSIsIkEiXQ~kb.jwt.sig";

const rule = (extra: Partial<PolicyCredentialRule> = {}): PolicyCredentialRule => ({
  id: "pid",
  credentialTypes: [VCT],
  requiredClaims: [["age_over_18"]],
  optionalClaims: [],
  holderBindingRequired: true,
  ...extra,
});

const verified = (claims: Record<string, unknown>, extra: Partial<CredentialVerification> = {}) =>
  vi.fn(
    async () =>
      ({
        ok: true,
        claims: { vct: VCT, ...claims },
        vct: VCT,
        issuer: "https://issuer.example",
        checks: {},
        holderBinding: "verified",
        ...extra,
      }) as CredentialVerification,
  );

describe("claim values", () => {
  it("puts values on required and optional claims of the query", () => {
    const query = policyToDcqlQuery({
      credentials: [
        rule({
          optionalClaims: [["nationalities"]],
          claimValues: [
            { path: ["age_over_18"], values: [true] },
            { path: ["nationalities"], values: ["DE", "AT"] },
          ],
        }),
      ],
      credentialSets: null,
    });
    expect(query.credentials[0]!.claims).toEqual([
      { id: "r0", path: ["age_over_18"], values: [true] },
      { id: "o0", path: ["nationalities"], values: ["DE", "AT"] },
    ]);
  });

  it("refuses values for a claim the rule does not request", () => {
    expect(() =>
      policyToDcqlQuery({
        credentials: [rule({ claimValues: [{ path: ["given_name"], values: ["Erika"] }] })],
        credentialSets: null,
      }),
    ).toThrow(InvalidDcqlQueryError);
  });

  it("claimValueMismatches: same type and value, one selected element suffices, absent claims pass", () => {
    const query = parseDcqlQuery({
      credentials: [
        {
          id: "pid",
          format: "dc+sd-jwt",
          meta: { vct_values: [VCT] },
          claims: [
            { path: ["age_over_18"], values: [true] },
            { path: ["nationalities", null], values: ["DE"] },
          ],
        },
      ],
    }).credentials[0]!;
    expect(claimValueMismatches(query, { age_over_18: true, nationalities: ["FR", "DE"] })).toEqual([]);
    expect(claimValueMismatches(query, { age_over_18: true })).toEqual([]);
    expect(claimValueMismatches(query, { age_over_18: "true" })).toEqual([
      { path: ["age_over_18"], values: [true] },
    ]);
    expect(claimValueMismatches(query, { age_over_18: true, nationalities: ["FR"] })).toEqual([
      { path: ["nationalities", null], values: ["DE"] },
    ]);
  });

  it("verifyVpToken rejects a disclosed value outside values (claim_value_mismatch), accepts one inside", async () => {
    const query = policyToDcqlQuery({
      credentials: [rule({ claimValues: [{ path: ["age_over_18"], values: [true] }] })],
      credentialSets: null,
    });
    const ok = await verifyVpToken({
      query,
      vpToken: { pid: [SD_JWT] },
      verifyCredential: verified({ age_over_18: true }),
    });
    expect(ok.outcome).toBe("verified");
    const bad = await verifyVpToken({
      query,
      vpToken: { pid: [SD_JWT] },
      verifyCredential: verified({ age_over_18: false }),
    });
    expect(bad.outcome).toBe("rejected");
    expect(bad.reasons.map((r) => r.code)).toEqual(["claim_value_mismatch", "missing_credential"]);
    expect(bad.reasons[0]!.credentialQueryId).toBe("pid");
  });
});

describe("multiple", () => {
  it("several presentations for one query only when the query allows multiple", async () => {
    for (const multiple of [true, false]) {
      const query = policyToDcqlQuery({ credentials: [rule({ multiple })], credentialSets: null });
      expect(query.credentials[0]!.multiple).toBe(multiple ? true : undefined);
      const result = await verifyVpToken({
        query,
        vpToken: { pid: [SD_JWT, SD_JWT] },
        verifyCredential: verified({ age_over_18: true }),
      });
      if (multiple) {
        expect(result.outcome).toBe("verified");
        expect(result.credentials).toHaveLength(2);
      } else {
        expect(result.outcome).toBe("rejected");
        expect(result.reasons.map((r) => r.code)).toEqual(["too_many_presentations"]);
      }
    }
  });
});

describe("require_cryptographic_holder_binding", () => {
  it("a presentation without key binding passes only when the query waives it", async () => {
    for (const holderBindingRequired of [false, true]) {
      const query = policyToDcqlQuery({
        credentials: [rule({ holderBindingRequired })],
        credentialSets: null,
      });
      expect(query.credentials[0]!.require_cryptographic_holder_binding).toBe(holderBindingRequired);
      const result = await verifyVpToken({
        query,
        vpToken: { pid: [SD_JWT] },
        verifyCredential: verified({ age_over_18: true }, { holderBinding: "absent" }),
      });
      expect(result.outcome).toBe(holderBindingRequired ? "rejected" : "verified");
      if (holderBindingRequired) expect(result.reasons[0]!.code).toBe("holder_binding_missing");
    }
  });

  it("with the real SD-JWT VC verifier: a credential without cnf and no KB-JWT, binding waived or not", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const issuerPublic = publicKey.export({ format: "jwk" }) as Jwk;
    const credential = await issueTestSdJwtVc({
      issuerPrivateKey: privateKey.export({ format: "jwk" }) as Jwk,
      iss: "https://issuer.example",
      vct: VCT,
      disclosable: { age_over_18: true },
    });
    const presentation = await createTestPresentation({
      credential,
      disclose: () => true,
      aud: "x509_hash:abc",
      nonce: "n",
      iat: Math.floor(Date.now() / 1000),
    });
    const verifyCredential = createSdJwtVcCredentialVerifier({
      clientId: "x509_hash:abc",
      nonce: "n",
      resolveIssuerKey: async () => issuerPublic,
    });
    for (const holderBindingRequired of [false, true]) {
      const query = policyToDcqlQuery({
        credentials: [rule({ holderBindingRequired })],
        credentialSets: null,
      });
      const result = await verifyVpToken({ query, vpToken: { pid: [presentation] }, verifyCredential });
      expect(result.outcome, JSON.stringify(result.reasons)).toBe(
        holderBindingRequired ? "rejected" : "verified",
      );
      if (holderBindingRequired) expect(result.reasons[0]!.code).toBe("key_binding_missing");
    }
  });
});

describe("trusted_authorities (aki)", () => {
  it("refuses a chain under another authority before any issuer key is resolved", async () => {
    const [trusted, other] = await Promise.all([
      generateVerifierCertificate({ dnsName: "issuer.example" }),
      generateVerifierCertificate({ dnsName: "issuer.example" }),
    ]);
    const { x509 } = await import("../x509/peculiar-x509");
    const ski = (pem: string) =>
      Buffer.from(
        new x509.X509Certificate(pem).getExtension(x509.SubjectKeyIdentifierExtension)!.keyId,
        "hex",
      ).toString("base64url");
    const query = policyToDcqlQuery({
      credentials: [rule({ trustedAuthorities: { aki: [ski(trusted.caCertificatePem)] } })],
      credentialSets: null,
    });
    const presentUnder = async (chain: typeof trusted) =>
      createTestPresentation({
        credential: await issueTestSdJwtVc({
          issuerPrivateKey: chain.privateKeyJwk,
          x5c: chain.x5c,
          iss: "https://issuer.example",
          vct: VCT,
          disclosable: { age_over_18: true },
        }),
        disclose: () => true,
        aud: "x509_hash:abc",
        nonce: "n",
        iat: Math.floor(Date.now() / 1000),
      });
    const { d: _d, ...trustedPublic } = trusted.privateKeyJwk;
    const resolveIssuerKey = vi.fn(async () => trustedPublic);
    const verifyCredential = createSdJwtVcCredentialVerifier({
      clientId: "x509_hash:abc",
      nonce: "n",
      resolveIssuerKey,
      enforceTrustedAuthorities: true,
    });
    const waived = {
      ...query,
      credentials: [{ ...query.credentials[0]!, require_cryptographic_holder_binding: false }],
    };
    const bad = await verifyVpToken({
      query: waived,
      vpToken: { pid: [await presentUnder(other)] },
      verifyCredential,
    });
    expect(bad.reasons[0]!.code).toBe("untrusted_authority");
    expect(resolveIssuerKey).not.toHaveBeenCalled();
    const good = await verifyVpToken({
      query: waived,
      vpToken: { pid: [await presentUnder(trusted)] },
      verifyCredential,
    });
    expect(good.outcome, JSON.stringify(good.reasons)).toBe("verified");
    expect(good.credentials[0]!.checks).toMatchObject({ trustedAuthorities: "passed" });
  });
});

describe("claim sets (alternatives among optional claims)", () => {
  const query = policyToDcqlQuery({
    credentials: [
      rule({
        requiredClaims: [["given_name"]],
        optionalClaims: [["birthdate"], ["age_over_18"]],
        claimSets: [[["birthdate"]], [["age_over_18"]]],
      }),
    ],
    credentialSets: null,
  });

  it("are the required claims plus one combination each, most preferred first", () => {
    expect(query.credentials[0]!.claim_sets).toEqual([
      ["r0", "o0"],
      ["r0", "o1"],
    ]);
  });

  it("a presentation meeting one of them is verified, one meeting none is rejected", async () => {
    const ok = await verifyVpToken({
      query,
      vpToken: { pid: [SD_JWT] },
      verifyCredential: verified({ given_name: "Erika", age_over_18: true }),
    });
    expect(ok.outcome).toBe("verified");
    const bad = await verifyVpToken({
      query,
      vpToken: { pid: [SD_JWT] },
      verifyCredential: verified({ given_name: "Erika" }),
    });
    expect(bad.outcome).toBe("rejected");
    expect(bad.reasons[0]!.code).toBe("missing_required_claims");
  });

  it("refuses a combination naming a claim that is not optional", () => {
    expect(() =>
      policyToDcqlQuery({
        credentials: [
          rule({ requiredClaims: [["given_name"]], optionalClaims: [["x"]], claimSets: [[["given_name"]]] }),
        ],
        credentialSets: null,
      }),
    ).toThrow(InvalidDcqlQueryError);
  });
});
