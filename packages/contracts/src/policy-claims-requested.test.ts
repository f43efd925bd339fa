import { describe, expect, it } from "vitest";
import {
  ZCreateVerificationPolicyRequest,
  ZCreateVerificationPolicyVersionRequest,
  zPolicyRules,
} from "./verification-policies";

const credential = (claims: { requiredClaims?: unknown[]; optionalClaims?: unknown[] } = {}) => ({
  id: "pid",
  credentialTypes: ["https://credentials.example.com/pid"],
  trustedIssuers: [{ issuerId: "iss_1" }],
  ...claims,
});

describe("a policy must ask for at least one claim", () => {
  it("refuses create and new-version requests whose credentials ask for none", () => {
    for (const [schema, extra] of [
      [ZCreateVerificationPolicyRequest, { identifier: "none" }],
      [ZCreateVerificationPolicyVersionRequest, { policyIdentifier: "none" }],
    ] as const) {
      const result = schema.safeParse({
        ...extra,
        displayName: "Nothing",
        credentials: [credential(), credential({ requiredClaims: [], optionalClaims: [] })].map((c, i) => ({
          ...c,
          id: `c${i}`,
        })),
      });
      expect(result.success).toBe(false);
      expect(result.error?.issues).toEqual([
        expect.objectContaining({
          path: ["credentials"],
          message: expect.stringContaining("The policy asks for no claims"),
        }),
      ]);
    }
  });

  it("accepts one claim anywhere, required or optional, even when another credential asks for none", () => {
    const result = ZCreateVerificationPolicyRequest.safeParse({
      identifier: "some",
      displayName: "Some",
      credentials: [
        { ...credential(), id: "a" },
        { ...credential({ optionalClaims: [["email"]] }), id: "b" },
      ],
    });
    expect(result.success).toBe(true);
  });

  it("still reads stored rules that ask for none (policies made before the rule)", () => {
    expect(zPolicyRules.safeParse({ credentials: [credential()] }).success).toBe(true);
  });
});
