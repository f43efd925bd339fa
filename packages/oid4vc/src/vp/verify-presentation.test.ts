import { describe, expect, it, vi } from "vitest";
import { parseDcqlQuery, policyToDcqlQuery } from "./dcql";
import { type CredentialVerification, verifyVpToken } from "./verify-presentation";

const SD_JWT = "eyJhbGciOiJFUzI1NiJ9.eyJ2Y3QiOiJ4In0.sig~WyJzIiwiZ2l2ZW5fbmFtZSIsIkEiXQ~kb.jwt.sig";

const query = policyToDcqlQuery({
  credentials: [
    {
      id: "pid",
      credentialTypes: ["https://example.com/pid"],
      requiredClaims: [["given_name"], ["age_equal_or_over", "18"]],
      optionalClaims: [["email"]],
      holderBindingRequired: true,
    },
  ],
  credentialSets: null,
});

const okResult = (claims: Record<string, unknown>, extra: Partial<CredentialVerification> = {}) =>
  ({
    ok: true,
    claims,
    vct: "https://example.com/pid",
    issuer: "https://issuer.example",
    checks: { signature: "passed" },
    holderBinding: "verified",
    ...extra,
  }) as CredentialVerification;

describe("verifyVpToken", () => {
  it("verifies and returns only the requested claims (over-disclosure is dropped)", async () => {
    const verifyCredential = vi.fn(async () =>
      okResult({
        iss: "https://issuer.example",
        vct: "https://example.com/pid",
        cnf: { jwk: {} },
        given_name: "Erika",
        family_name: "Mustermann",
        birthdate: "1964-08-12",
        age_equal_or_over: { "18": true, "21": true, "65": false },
      }),
    );
    const result = await verifyVpToken({ query, vpToken: { pid: [SD_JWT] }, verifyCredential });
    expect(result).toEqual({
      outcome: "verified",
      reasons: [],
      credentials: [
        {
          queryId: "pid",
          credentialType: "https://example.com/pid",
          issuer: "https://issuer.example",
          claims: { given_name: "Erika", age_equal_or_over: { "18": true } },
          checks: { signature: "passed" },
        },
      ],
    });
    expect(JSON.stringify(result)).not.toContain("Mustermann");
    expect(JSON.stringify(result)).not.toContain("1964");
    expect(verifyCredential).toHaveBeenCalledWith(SD_JWT, query.credentials[0]);
  });

  it("includes optional claims when disclosed", async () => {
    const result = await verifyVpToken({
      query,
      vpToken: { pid: [SD_JWT] },
      verifyCredential: async () =>
        okResult({ given_name: "E", age_equal_or_over: { "18": true }, email: "e@x" }),
    });
    expect(result.credentials[0]?.claims).toEqual({
      given_name: "E",
      age_equal_or_over: { "18": true },
      email: "e@x",
    });
  });

  it("rejects a malformed vp_token without calling the credential verifier (step 1)", async () => {
    const verifyCredential = vi.fn();
    for (const vpToken of [null, "x", { pid: "x" }, { pid: [] }, { "p.d": ["x"] }]) {
      const result = await verifyVpToken({ query, vpToken, verifyCredential });
      expect(result.outcome).toBe("rejected");
      expect(result.reasons[0]?.code).toBe("invalid_vp_token");
    }
    expect(verifyCredential).not.toHaveBeenCalled();
  });

  it("rejects unknown ids and extra presentations before verifying (step 1)", async () => {
    const verifyCredential = vi.fn();
    const r1 = await verifyVpToken({ query, vpToken: { pid: [SD_JWT], x: [SD_JWT] }, verifyCredential });
    expect(r1.reasons.map((r) => r.code)).toEqual(["unknown_credential_query"]);
    const r2 = await verifyVpToken({ query, vpToken: { pid: [SD_JWT, SD_JWT] }, verifyCredential });
    expect(r2.reasons.map((r) => r.code)).toEqual(["too_many_presentations"]);
    expect(verifyCredential).not.toHaveBeenCalled();
  });

  it("rejects presentations that are not SD-JWTs", async () => {
    const verifyCredential = vi.fn();
    const result = await verifyVpToken({ query, vpToken: { pid: ["not-an-sd-jwt"] }, verifyCredential });
    expect(result.outcome).toBe("rejected");
    expect(result.reasons[0]).toMatchObject({
      code: "invalid_presentation_format",
      credentialQueryId: "pid",
    });
    expect(verifyCredential).not.toHaveBeenCalled();
  });

  it("passes through the credential verifier's reasons (step 2)", async () => {
    const result = await verifyVpToken({
      query,
      vpToken: { pid: [SD_JWT] },
      verifyCredential: async () => ({
        ok: false,
        reasons: [{ code: "credential_revoked", message: "revoked" }],
      }),
    });
    expect(result).toEqual({
      outcome: "rejected",
      reasons: [
        { code: "credential_revoked", message: "revoked", credentialQueryId: "pid" },
        {
          code: "missing_credential",
          message: 'no presentation for credential query "pid"',
          credentialQueryId: "pid",
        },
      ],
      credentials: [],
    });
  });

  it("turns a throwing credential verifier into a reason", async () => {
    const result = await verifyVpToken({
      query,
      vpToken: { pid: [SD_JWT] },
      verifyCredential: async () => {
        throw new Error("boom");
      },
    });
    expect(result.reasons[0]).toMatchObject({ code: "credential_verification_failed", message: "boom" });
  });

  it("checks the type, the required claims and holder binding (steps 2.2, 2.3)", async () => {
    const wrongType = await verifyVpToken({
      query,
      vpToken: { pid: [SD_JWT] },
      verifyCredential: async () =>
        okResult({ given_name: "E", age_equal_or_over: { "18": true } }, { vct: "other" }),
    });
    expect(wrongType.reasons[0]?.code).toBe("credential_type_mismatch");
    // A credential of a derived type that names the requested one in aka_vcts is of that type too.
    const derived = await verifyVpToken({
      query,
      vpToken: { pid: [SD_JWT] },
      verifyCredential: async () =>
        okResult(
          { given_name: "E", age_equal_or_over: { "18": true } },
          { vct: "https://example.com/pid/de", akaVcts: ["https://example.com/pid"] },
        ),
    });
    expect(derived.outcome, JSON.stringify(derived.reasons)).toBe("verified");

    const missing = await verifyVpToken({
      query,
      vpToken: { pid: [SD_JWT] },
      verifyCredential: async () => okResult({ given_name: "E", email: "e@x" }),
    });
    expect(missing.outcome).toBe("rejected");
    expect(missing.reasons[0]).toMatchObject({ code: "missing_required_claims", credentialQueryId: "pid" });
    expect(missing.reasons[0]?.message).toContain('["age_equal_or_over","18"]');

    const unbound = await verifyVpToken({
      query,
      vpToken: { pid: [SD_JWT] },
      verifyCredential: async () =>
        okResult({ given_name: "E", age_equal_or_over: { "18": true } }, { holderBinding: "absent" }),
    });
    expect(unbound.reasons[0]?.code).toBe("holder_binding_missing");
  });

  it("accepts an unbound presentation when binding was waived", async () => {
    const q = policyToDcqlQuery({
      credentials: [
        {
          id: "a",
          credentialTypes: ["https://example.com/pid"],
          requiredClaims: [],
          optionalClaims: [],
          holderBindingRequired: false,
        },
      ],
      credentialSets: null,
    });
    const result = await verifyVpToken({
      query: q,
      vpToken: { a: ["x.y.z~"] },
      verifyCredential: async () => okResult({ given_name: "E" }, { holderBinding: "absent" }),
    });
    expect(result.outcome).toBe("verified");
    expect(result.credentials[0]?.claims).toEqual({}); // no claims were requested
  });

  describe("credential sets (step 3)", () => {
    const setQuery = parseDcqlQuery({
      credentials: [
        {
          id: "pid",
          format: "dc+sd-jwt",
          meta: { vct_values: ["https://example.com/pid"] },
          claims: [{ path: ["given_name"] }],
        },
        {
          id: "other",
          format: "dc+sd-jwt",
          meta: { vct_values: ["https://example.com/pid"] },
          claims: [{ path: ["given_name"] }],
        },
        {
          id: "extra",
          format: "dc+sd-jwt",
          meta: { vct_values: ["https://example.com/pid"] },
          claims: [{ path: ["given_name"] }],
        },
      ],
      credential_sets: [{ options: [["pid"], ["other"]] }, { options: [["extra"]], required: false }],
    });
    const byPresentation = (bad: string) => async (presentation: string) =>
      presentation === bad
        ? ({ ok: false, reasons: [{ code: "invalid_signature", message: "bad" }] } as const)
        : okResult({ given_name: "E" });

    it("is verified when one option of each required set is met", async () => {
      const result = await verifyVpToken({
        query: setQuery,
        vpToken: { other: ["a.b.c~"] },
        verifyCredential: byPresentation("none"),
      });
      expect(result.outcome).toBe("verified");
      expect(result.credentials.map((c) => c.queryId)).toEqual(["other"]);
    });

    it("rejects when a required set is not met", async () => {
      const result = await verifyVpToken({
        query: setQuery,
        vpToken: { extra: ["a.b.c~"] },
        verifyCredential: byPresentation("none"),
      });
      expect(result.outcome).toBe("rejected");
      expect(result.reasons.map((r) => r.code)).toEqual(["credential_sets_unsatisfied"]);
    });

    it("by default rejects when any presentation fails, even an optional one", async () => {
      const result = await verifyVpToken({
        query: setQuery,
        vpToken: { pid: ["a.b.c~"], extra: ["bad.b.c~"] },
        verifyCredential: byPresentation("bad.b.c~"),
      });
      expect(result.outcome).toBe("rejected");
      expect(result.credentials).toEqual([]);
    });

    it("with rejectOnAnyFailure=false discards failed presentations (§8.6) and still decides on the rest", async () => {
      const ok = await verifyVpToken({
        query: setQuery,
        vpToken: { pid: ["a.b.c~"], extra: ["bad.b.c~"] },
        verifyCredential: byPresentation("bad.b.c~"),
        rejectOnAnyFailure: false,
      });
      expect(ok.outcome).toBe("verified");
      expect(ok.credentials.map((c) => c.queryId)).toEqual(["pid"]);
      expect(ok.reasons).toEqual([{ code: "invalid_signature", message: "bad", credentialQueryId: "extra" }]);

      const notOk = await verifyVpToken({
        query: setQuery,
        vpToken: { pid: ["bad.b.c~"], extra: ["a.b.c~"] },
        verifyCredential: byPresentation("bad.b.c~"),
        rejectOnAnyFailure: false,
      });
      expect(notOk.outcome).toBe("rejected");
      expect(notOk.reasons.map((r) => r.code)).toEqual(["invalid_signature", "credential_sets_unsatisfied"]);
    });

    it("rejects a response none of whose presentations survived, even when no set is required", async () => {
      const optional = parseDcqlQuery({
        credentials: [
          {
            id: "extra",
            format: "dc+sd-jwt",
            meta: { vct_values: ["https://example.com/pid"] },
            claims: [{ path: ["given_name"] }],
          },
        ],
        credential_sets: [{ options: [["extra"]], required: false }],
      });
      for (const rejectOnAnyFailure of [true, false]) {
        const result = await verifyVpToken({
          query: optional,
          vpToken: { extra: ["bad.b.c~"] },
          verifyCredential: byPresentation("bad.b.c~"),
          rejectOnAnyFailure,
        });
        expect(result.outcome).toBe("rejected");
        expect(result.reasons.map((r) => r.code)).toEqual(["invalid_signature", "missing_credential"]);
      }
      const empty = await verifyVpToken({
        query: optional,
        vpToken: {},
        verifyCredential: byPresentation("x"),
      });
      expect(empty.outcome).toBe("rejected");
    });
  });

  it("verifies several presentations concurrently for multiple: true", async () => {
    const q = parseDcqlQuery({
      credentials: [
        { id: "m", format: "dc+sd-jwt", multiple: true, meta: { vct_values: ["https://example.com/pid"] } },
      ],
    });
    let inFlight = 0;
    let maxInFlight = 0;
    const result = await verifyVpToken({
      query: q,
      vpToken: { m: ["a.b.c~", "d.e.f~", "g.h.i~"] },
      verifyCredential: async () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return okResult({});
      },
    });
    expect(result.outcome).toBe("verified");
    expect(result.credentials).toHaveLength(3);
    expect(maxInFlight).toBe(3);
  });
});
