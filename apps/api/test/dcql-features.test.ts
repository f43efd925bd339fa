import {
  certificateAki,
  generateVerifierCertificate,
  importEs256PrivateKey,
  issueSdJwtVc,
} from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAIMS, type TestIssuer, verifierFixture } from "./fixtures/verifier";
import { call, errorCode, type TestServer } from "./harness";

/**
 * DCQL features a policy expresses and the verifier enforces on the presentation, not only in the
 * request (OpenID4VP §6): claim `values`, `multiple`, `require_cryptographic_holder_binding: false`,
 * `trusted_authorities` of type `aki`, `credential_sets`. One positive and one negative each, end to end
 * with the test wallet.
 */

let t: TestServer;
let issuerA: TestIssuer;
let issuerB: TestIssuer;

const { setUp, issue, policyBody, createPolicy, verifyWith, reasonCodes } = verifierFixture();

beforeAll(async () => {
  ({ t, issuerA, issuerB } = await setUp());
});
afterAll(() => t?.close());

type DcqlCredential = {
  claims?: { path: unknown[]; values?: unknown[] }[];
  multiple?: boolean;
  require_cryptographic_holder_binding?: boolean;
  trusted_authorities?: { type: string; values: string[] }[];
};
const credentialQuery = (request: Record<string, unknown>) =>
  (request.dcql_query as { credentials: DcqlCredential[] }).credentials[0]!;

describe("claim values", () => {
  beforeAll(async () => {
    await createPolicy(
      policyBody(
        "values-over-18",
        { responseMode: "direct_post" },
        {
          requiredClaims: [["age_over_18"]],
          optionalClaims: [["family_name"]],
          claimValues: [
            { path: ["age_over_18"], values: [true] },
            { path: ["family_name"], values: ["Mustermann", "Musterfrau"] },
          ],
        },
      ),
    );
  });

  it("sends values in the query and verifies a presentation whose claims have one of them", async () => {
    const { credential } = await issue();
    const { session, wallet } = await verifyWith("values-over-18", { credential });
    expect(credentialQuery(wallet.request).claims).toEqual([
      { id: "r0", path: ["age_over_18"], values: [true] },
      { id: "o0", path: ["family_name"], values: ["Mustermann", "Musterfrau"] },
    ]);
    expect(session.status, JSON.stringify(session.result)).toBe("verified");
    expect(session.result.credentials[0].claims).toEqual({ age_over_18: true, family_name: "Mustermann" });
  });

  it("rejects a presentation whose disclosed value is none of them (claim_value_mismatch), required or optional", async () => {
    for (const claims of [
      { ...CLAIMS, age_over_18: false },
      { ...CLAIMS, age_over_18: "true" },
      { ...CLAIMS, family_name: "Doe" },
    ]) {
      const { credential } = await issue({ claims });
      const { session } = await verifyWith("values-over-18", { credential });
      expect(session.status).toBe("rejected");
      expect(reasonCodes(session)).toContain("claim_value_mismatch");
      expect(session.result.credentials).toEqual([]);
    }
  });

  it("400 when values name a claim the credential does not request, or carry a value of another type", async () => {
    for (const [claimValues, target] of [
      [[{ path: ["birthdate"], values: ["1984-01-26"] }], "credentials.0.claimValues.0.path"],
      [[{ path: ["age_over_18"], values: [{ over: 18 }] }], "credentials.0.claimValues.0.values.0"],
      [[{ path: ["age_over_18"], values: [] }], "credentials.0.claimValues.0.values"],
    ] as const) {
      const r = await call(t, "POST", "/management/verification-policies", {
        key: t.adminKey,
        body: policyBody(`values-bad-${Date.now().toString(36)}`, {}, { claimValues }),
      });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(errorCode(r)).toBe("ValidationFailed");
      expect(JSON.stringify(r.body)).toContain(target);
    }
  });
});

describe("multiple", () => {
  beforeAll(async () => {
    await createPolicy(policyBody("multiple-yes", { responseMode: "direct_post" }, { multiple: true }));
    await createPolicy(policyBody("multiple-no", { responseMode: "direct_post" }));
  });

  it("accepts several credentials for one query when the policy allows multiple", async () => {
    const credentials = [(await issue()).credential, (await issue()).credential];
    const { session, wallet } = await verifyWith("multiple-yes", {
      credential: credentials,
      presentEveryMatch: true,
    });
    expect(credentialQuery(wallet.request).multiple).toBe(true);
    expect(wallet.vpToken.pid).toHaveLength(2);
    expect(session.status, JSON.stringify(session.result)).toBe("verified");
    expect(session.result.credentials).toHaveLength(2);
    expect(session.result.credentials.map((c: { credentialQueryId: string }) => c.credentialQueryId)).toEqual(
      ["pid", "pid"],
    );
  });

  it("rejects several credentials for one query without multiple (too_many_presentations)", async () => {
    const credentials = [(await issue()).credential, (await issue()).credential];
    const { session, wallet } = await verifyWith("multiple-no", {
      credential: credentials,
      presentEveryMatch: true,
    });
    expect(credentialQuery(wallet.request)).not.toHaveProperty("multiple");
    expect(session.status).toBe("rejected");
    expect(reasonCodes(session)).toEqual(["too_many_presentations"]);
    // One of them alone is fine.
    const single = await verifyWith("multiple-no", { credential: credentials[0]! });
    expect(single.session.status).toBe("verified");
  });
});

describe("require_cryptographic_holder_binding", () => {
  /** A credential of issuer A with no holder key (`cnf`): it can only be presented without a KB-JWT. */
  const unboundCredential = () => {
    const now = Math.floor(Date.now() / 1000);
    return issueSdJwtVc({
      privateKey: issuerA.privateKey,
      kid: issuerA.kid,
      iss: issuerA.credentialIssuer,
      vct: issuerA.vct,
      iat: now,
      exp: now + 3600,
      claims: CLAIMS,
      disclosable: Object.keys(CLAIMS).map((k) => [k]),
    });
  };

  beforeAll(async () => {
    await createPolicy(
      policyBody("unbound-ok", { responseMode: "direct_post" }, { holderBindingRequired: false }),
    );
  });

  it("false: a credential without cnf, presented without a KB-JWT, is verified", async () => {
    const { session, wallet } = await verifyWith("unbound-ok", {
      credential: await unboundCredential(),
      withoutKeyBinding: true,
    });
    expect(credentialQuery(wallet.request).require_cryptographic_holder_binding).toBe(false);
    expect(session.status, JSON.stringify(session.result)).toBe("verified");
    expect(session.result.credentials[0].checks.holderBinding).toBe("skipped");
  });

  it("true (default): the same presentation is rejected (key_binding_missing)", async () => {
    const { session, wallet } = await verifyWith("pid-nostatus", {
      credential: await unboundCredential(),
      withoutKeyBinding: true,
    });
    expect(credentialQuery(wallet.request).require_cryptographic_holder_binding).toBe(true);
    expect(session.status).toBe("rejected");
    expect(reasonCodes(session)).toContain("key_binding_missing");
  });
});

describe("trusted_authorities (aki of the policy's X.509 roots)", () => {
  const vct = "https://issuer.example.com/aki-pid";
  let chain: Awaited<ReturnType<typeof generateVerifierCertificate>>;

  const issueUnder = async (under: typeof chain) => {
    const now = Math.floor(Date.now() / 1000);
    return issueSdJwtVc({
      privateKey: await importEs256PrivateKey(under.privateKeyJwk),
      x5c: under.x5c,
      iss: "https://issuer.example.com",
      vct,
      iat: now,
      exp: now + 3600,
      claims: { given_name: "Erika" },
      disclosable: [["given_name"]],
    });
  };

  beforeAll(async () => {
    chain = await generateVerifierCertificate({ dnsName: "issuer.example.com" });
    await createPolicy({
      identifier: "aki-pid",
      displayName: "aki",
      responseMode: "direct_post",
      credentials: [
        {
          id: "pid",
          credentialTypes: [vct],
          trustedIssuers: [{ x5cRoot: chain.caCertificatePem }],
          requiredClaims: [["given_name"]],
          holderBindingRequired: false,
        },
      ],
    });
  });

  it("names the root's key identifier and verifies a credential whose chain carries it", async () => {
    const { session, wallet } = await verifyWith("aki-pid", {
      credential: await issueUnder(chain),
      withoutKeyBinding: true,
    });
    expect(credentialQuery(wallet.request).trusted_authorities).toEqual([
      { type: "aki", values: [certificateAki(chain.leafDer)] },
    ]);
    expect(session.status, JSON.stringify(session.result)).toBe("verified");
    expect(session.result.credentials[0].checks.trustedAuthorities).toBe("passed");
  });

  it("rejects a credential whose chain names another authority (untrusted_authority)", async () => {
    const other = await generateVerifierCertificate({ dnsName: "issuer.example.com" });
    const { session } = await verifyWith("aki-pid", {
      credential: await issueUnder(other),
      withoutKeyBinding: true,
    });
    expect(session.status).toBe("rejected");
    expect(reasonCodes(session)).toContain("untrusted_authority");
  });
});

describe("credential_sets", () => {
  const twoCredentials = (identifier: string, options: string[][]) => ({
    identifier,
    displayName: identifier,
    responseMode: "direct_post",
    credentials: [
      {
        id: "pid",
        credentialTypes: [issuerA.vct],
        trustedIssuers: [{ issuerId: issuerA.issuerId }],
        requiredClaims: [["given_name"]],
      },
      {
        id: "alt",
        credentialTypes: [issuerB.vct],
        trustedIssuers: [{ issuerId: issuerB.issuerId }],
        requiredClaims: [["family_name"]],
      },
    ],
    credentialSets: [{ options }],
  });

  beforeAll(async () => {
    await createPolicy(twoCredentials("sets-either", [["pid"], ["alt"]]));
    await createPolicy(twoCredentials("sets-both", [["pid", "alt"]]));
  });

  it("one option of the set is enough: the second alternative alone is verified", async () => {
    const { credential } = await issue({ issuer: issuerB });
    const { session, wallet } = await verifyWith("sets-either", { credential });
    expect((wallet.request.dcql_query as { credential_sets: unknown }).credential_sets).toEqual([
      { options: [["pid"], ["alt"]] },
    ]);
    expect(Object.keys(wallet.vpToken)).toEqual(["alt"]);
    expect(session.status, JSON.stringify(session.result)).toBe("verified");
    expect(session.result.credentials[0].credentialQueryId).toBe("alt");
  });

  it("an option only partly presented is rejected (credential_sets_unsatisfied)", async () => {
    const { credential } = await issue();
    const { session } = await verifyWith("sets-both", { credential });
    expect(session.status).toBe("rejected");
    expect(reasonCodes(session)).toContain("credential_sets_unsatisfied");
  });
});

describe("claim sets (policy claimSets → DCQL claim_sets)", () => {
  beforeAll(async () => {
    await createPolicy(
      policyBody(
        "claim-sets",
        { responseMode: "direct_post" },
        {
          requiredClaims: [["given_name"]],
          optionalClaims: [["birthdate"], ["age_over_18"]],
          claimSets: [[["birthdate"]], [["age_over_18"]]],
        },
      ),
    );
  });

  it("verifies a credential that discloses the required claims and one alternative", async () => {
    const { credential } = await issue({ claims: { given_name: "Erika", age_over_18: true } });
    const { session, wallet } = await verifyWith("claim-sets", { credential });
    expect(
      (wallet.request.dcql_query as { credentials: { claim_sets: unknown }[] }).credentials[0]!.claim_sets,
    ).toEqual([
      ["r0", "o0"],
      ["r0", "o1"],
    ]);
    expect(session.status, JSON.stringify(session.result)).toBe("verified");
    expect(session.result.credentials[0].claims).toEqual({ given_name: "Erika", age_over_18: true });
  });

  it("rejects one that discloses none of the alternatives (missing_required_claims)", async () => {
    const { credential } = await issue({ claims: { given_name: "Erika", family_name: "Mustermann" } });
    const { session } = await verifyWith("claim-sets", { credential });
    expect(session.status).toBe("rejected");
    expect(reasonCodes(session)).toContain("missing_required_claims");
  });

  it("400 when a combination names a claim that is not optional", async () => {
    const r = await call(t, "POST", "/management/verification-policies", {
      key: t.adminKey,
      body: policyBody("claim-sets-bad", {}, { claimSets: [[["given_name"]]] }),
    });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain("credentials.0.claimSets.0.0");
  });
});
