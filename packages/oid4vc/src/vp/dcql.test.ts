import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  checkClaimRequirements,
  evaluateCredentialSets,
  InvalidDcqlQueryError,
  type PolicyCredentialRule,
  parseDcqlQuery,
  policyToDcqlQuery,
} from "./dcql";
import { zDcqlQuery } from "./z-dcql";

const rule = (overrides: Partial<PolicyCredentialRule> = {}): PolicyCredentialRule => ({
  id: "pid",
  credentialTypes: ["https://credentials.example.com/identity_credential"],
  requiredClaims: [["given_name"], ["age_equal_or_over", "18"]],
  optionalClaims: [],
  holderBindingRequired: true,
  ...overrides,
});

describe("policyToDcqlQuery", () => {
  it("maps a policy with required claims only", () => {
    expect(policyToDcqlQuery({ credentials: [rule()], credentialSets: null })).toEqual({
      credentials: [
        {
          id: "pid",
          format: "dc+sd-jwt",
          meta: { vct_values: ["https://credentials.example.com/identity_credential"] },
          claims: [{ path: ["given_name"] }, { path: ["age_equal_or_over", "18"] }],
          require_cryptographic_holder_binding: true,
        },
      ],
    });
  });

  it("expresses optional claims as claim_sets (all first, then required only)", () => {
    const q = policyToDcqlQuery({
      credentials: [rule({ requiredClaims: [["given_name"]], optionalClaims: [["email"]] })],
      credentialSets: null,
    });
    expect(q.credentials[0]).toMatchObject({
      claims: [
        { id: "r0", path: ["given_name"] },
        { id: "o0", path: ["email"] },
      ],
      claim_sets: [["r0", "o0"], ["r0"]],
    });
    expect(zDcqlQuery.safeParse(q).success).toBe(true);
  });

  it("uses the always-present vct claim when every claim is optional", () => {
    const q = policyToDcqlQuery({
      credentials: [rule({ requiredClaims: [], optionalClaims: [["email"]] })],
      credentialSets: null,
    });
    expect(q.credentials[0]).toMatchObject({
      claims: [
        { id: "o0", path: ["email"] },
        { id: "vct", path: ["vct"] },
      ],
      claim_sets: [["o0"], ["vct"]],
    });
    expect(zDcqlQuery.safeParse(q).success).toBe(true);
  });

  it("omits claims when none are asked for, and maps binding, multiple and trusted authorities", () => {
    const q = policyToDcqlQuery({
      credentials: [
        rule({
          requiredClaims: [],
          holderBindingRequired: false,
          multiple: true,
          trustedAuthorities: { aki: ["s9tIpPmhxdiuNkHMEWNpYim8S8Y"] },
        }),
      ],
      credentialSets: null,
    });
    expect(q.credentials[0]).toEqual({
      id: "pid",
      format: "dc+sd-jwt",
      meta: { vct_values: ["https://credentials.example.com/identity_credential"] },
      require_cryptographic_holder_binding: false,
      multiple: true,
      trusted_authorities: [{ type: "aki", values: ["s9tIpPmhxdiuNkHMEWNpYim8S8Y"] }],
    });
  });

  it("maps credential sets", () => {
    const q = policyToDcqlQuery({
      credentials: [rule(), rule({ id: "other_pid" }), rule({ id: "nice_to_have" })],
      credentialSets: [
        { options: [["pid"], ["other_pid"]] },
        { options: [["nice_to_have"]], required: false },
      ],
    });
    expect(q.credential_sets).toEqual([
      { options: [["pid"], ["other_pid"]] },
      { options: [["nice_to_have"]], required: false },
    ]);
  });

  it.each([
    ["bad id", { credentials: [rule({ id: "p id" })], credentialSets: null }],
    ["empty id", { credentials: [rule({ id: "" })], credentialSets: null }],
    ["duplicate id", { credentials: [rule(), rule()], credentialSets: null }],
    ["no credentials", { credentials: [], credentialSets: null }],
    ["no types", { credentials: [rule({ credentialTypes: [] })], credentialSets: null }],
    ["duplicate claim", { credentials: [rule({ optionalClaims: [["given_name"]] })], credentialSets: null }],
    ["empty path", { credentials: [rule({ requiredClaims: [[]] })], credentialSets: null }],
    ["unknown set id", { credentials: [rule()], credentialSets: [{ options: [["nope"]] }] }],
    ["empty sets", { credentials: [rule()], credentialSets: [] }],
    ["empty aki", { credentials: [rule({ trustedAuthorities: { aki: [] } })], credentialSets: null }],
  ])("rejects %s", (_name, policy) => {
    expect(() => policyToDcqlQuery(policy)).toThrow(InvalidDcqlQueryError);
  });
});

describe("zDcqlQuery / parseDcqlQuery", () => {
  // The specification's own DCQL examples (OpenID4VP 1.0-final, examples/query_lang/), embedded verbatim.
  const specExamples: Record<string, unknown> = {
    simple: {
      credentials: [
        {
          id: "my_credential",
          format: "dc+sd-jwt",
          meta: { vct_values: ["https://credentials.example.com/identity_credential"] },
          claims: [
            { path: ["last_name"] },
            { path: ["first_name"] },
            { path: ["address", "street_address"] },
          ],
        },
      ],
    },
    claims_alternatives: {
      credentials: [
        {
          id: "pid",
          format: "dc+sd-jwt",
          meta: { vct_values: ["https://credentials.example.com/identity_credential"] },
          claims: [
            { id: "a", path: ["last_name"] },
            { id: "b", path: ["postal_code"] },
            { id: "c", path: ["locality"] },
            { id: "d", path: ["region"] },
            { id: "e", path: ["date_of_birth"] },
          ],
          claim_sets: [
            ["a", "c", "d", "e"],
            ["a", "b", "e"],
          ],
        },
      ],
    },
    value_matching_simple: {
      credentials: [
        {
          id: "my_credential",
          format: "dc+sd-jwt",
          meta: { vct_values: ["https://credentials.example.com/identity_credential"] },
          claims: [
            { path: ["last_name"], values: ["Doe"] },
            { path: ["first_name"] },
            { path: ["address", "street_address"] },
            { path: ["postal_code"], values: ["90210", "90211"] },
          ],
        },
      ],
    },
    multi_credentials: {
      credentials: [
        {
          id: "pid",
          format: "dc+sd-jwt",
          meta: { vct_values: ["https://credentials.example.com/identity_credential"] },
          claims: [{ path: ["given_name"] }],
        },
        {
          id: "mdl",
          format: "mso_mdoc",
          meta: { doctype_value: "org.iso.7367.1.mVRC" },
          claims: [{ path: ["org.iso.7367.1", "vehicle_holder"] }],
        },
      ],
    },
  };

  it.each(Object.entries(specExamples))("accepts the spec example %s", (_name, example) => {
    expect(() => parseDcqlQuery(example)).not.toThrow();
  });

  it("keeps unknown properties (they must be ignored, §6)", () => {
    const q = parseDcqlQuery({ ...(specExamples.simple as object), future_extension: 1 });
    expect((q as Record<string, unknown>).future_extension).toBe(1);
  });

  it.each([
    ["missing meta", { credentials: [{ id: "a", format: "dc+sd-jwt" }] }],
    ["missing vct_values", { credentials: [{ id: "a", format: "dc+sd-jwt", meta: {} }] }],
    ["bad id", { credentials: [{ id: "a.b", format: "dc+sd-jwt", meta: { vct_values: ["x"] } }] }],
    [
      "duplicate id",
      {
        credentials: [
          { id: "a", format: "dc+sd-jwt", meta: { vct_values: ["x"] } },
          { id: "a", format: "dc+sd-jwt", meta: { vct_values: ["x"] } },
        ],
      },
    ],
    ["empty credentials", { credentials: [] }],
    [
      "claim_sets without ids",
      {
        credentials: [
          {
            id: "a",
            format: "dc+sd-jwt",
            meta: { vct_values: ["x"] },
            claims: [{ path: ["x"] }],
            claim_sets: [["x"]],
          },
        ],
      },
    ],
    [
      "negative path index",
      {
        credentials: [
          { id: "a", format: "dc+sd-jwt", meta: { vct_values: ["x"] }, claims: [{ path: ["x", -1] }] },
        ],
      },
    ],
    [
      "unknown credential set id",
      {
        credentials: [{ id: "a", format: "dc+sd-jwt", meta: { vct_values: ["x"] } }],
        credential_sets: [{ options: [["b"]] }],
      },
    ],
  ])("rejects %s", (_name, query) => {
    expect(() => parseDcqlQuery(query)).toThrow(InvalidDcqlQueryError);
  });
});

describe("evaluateCredentialSets", () => {
  // Spec example credentials_alternatives.json
  const query = parseDcqlQuery({
    credentials: ["pid", "other_pid", "pid_reduced_cred_1", "pid_reduced_cred_2", "nice_to_have"].map(
      (id) => ({
        id,
        format: "dc+sd-jwt",
        meta: { vct_values: [`https://example.com/${id}`] },
      }),
    ),
    credential_sets: [
      { options: [["pid"], ["other_pid"], ["pid_reduced_cred_1", "pid_reduced_cred_2"]] },
      { required: false, options: [["nice_to_have"]] },
    ],
  });

  it("is satisfied by any option of each required set", () => {
    expect(evaluateCredentialSets(query, ["pid"]).satisfied).toBe(true);
    expect(evaluateCredentialSets(query, ["other_pid", "nice_to_have"]).satisfied).toBe(true);
    expect(evaluateCredentialSets(query, ["pid_reduced_cred_1", "pid_reduced_cred_2"]).satisfied).toBe(true);
  });

  it("reports unsatisfied required sets; optional sets never fail", () => {
    expect(evaluateCredentialSets(query, ["pid_reduced_cred_1", "nice_to_have"])).toEqual({
      satisfied: false,
      unsatisfied: [
        { setIndex: 0, options: [["pid"], ["other_pid"], ["pid_reduced_cred_1", "pid_reduced_cred_2"]] },
      ],
    });
    expect(evaluateCredentialSets(query, []).satisfied).toBe(false);
  });

  it("requires every credential query when there are no credential_sets", () => {
    const q = policyToDcqlQuery({ credentials: [rule(), rule({ id: "b" })], credentialSets: null });
    expect(evaluateCredentialSets(q, ["pid", "b"]).satisfied).toBe(true);
    expect(evaluateCredentialSets(q, new Set(["pid"]))).toEqual({
      satisfied: false,
      unsatisfied: [{ setIndex: null, options: [["b"]] }],
    });
  });
});

describe("checkClaimRequirements", () => {
  it("needs every claim without claim_sets", () => {
    const q = policyToDcqlQuery({ credentials: [rule()], credentialSets: null }).credentials[0]!;
    expect(checkClaimRequirements(q, { given_name: "A", age_equal_or_over: { "18": true } }).ok).toBe(true);
    expect(checkClaimRequirements(q, { given_name: "A" })).toEqual({
      ok: false,
      missing: [["age_equal_or_over", "18"]],
    });
  });

  it("needs one full claim set", () => {
    const q = policyToDcqlQuery({
      credentials: [rule({ requiredClaims: [["given_name"]], optionalClaims: [["email"]] })],
      credentialSets: null,
    }).credentials[0]!;
    expect(checkClaimRequirements(q, { given_name: "A", email: "a@x" })).toEqual({
      ok: true,
      claimSet: ["r0", "o0"],
    });
    expect(checkClaimRequirements(q, { given_name: "A" })).toEqual({ ok: true, claimSet: ["r0"] });
    expect(checkClaimRequirements(q, { email: "a@x" }).ok).toBe(false);
  });

  it("leaves `values` to claimValueMismatches", () => {
    const q = parseDcqlQuery({
      credentials: [
        {
          id: "a",
          format: "dc+sd-jwt",
          meta: { vct_values: ["x"] },
          claims: [{ path: ["last_name"], values: ["Doe"] }],
        },
      ],
    }).credentials[0]!;
    expect(checkClaimRequirements(q, { last_name: "Smith" }).ok).toBe(true);
  });
});

describe("spec examples from the repository (when the mirror is present)", () => {
  it("parses examples/query_lang/*.json at tag 1.0-final", () => {
    let files: string[] = [];
    const git = ["-C", "/work/.mirror/openid+OpenID4VP/repo"];
    try {
      files = execFileSync("git", [...git, "ls-tree", "--name-only", "1.0-final", "examples/query_lang/"], {
        encoding: "utf8",
      })
        .split("\n")
        .filter((f) => f.endsWith(".json"));
    } catch {
      return; // mirror not available: the embedded copies above cover the same examples
    }
    for (const file of files) {
      const json = JSON.parse(
        execFileSync("git", [...git, "show", `1.0-final:${file}`], { encoding: "utf8" }),
      );
      expect(() => parseDcqlQuery(json), file).not.toThrow();
    }
  });
});
