import { describe, expect, it } from "vitest";
import { validateClaims } from "../issuance/validate-claims";
import { claimPattern } from "./claim-pattern";

describe("claim patterns", () => {
  it("compiles ordinary patterns for the linear-time engine", () => {
    expect(claimPattern("^[A-Z]{2}\\d{4}$")?.test("NL1234")).toBe(true);
    expect(claimPattern("^[A-Z]{2}\\d{4}$")?.test("NL123")).toBe(false);
    expect(claimPattern("^(a+)+$")?.flags).toContain("l");
  });

  it("refuses what needs backtracking or Unicode mode, and malformed patterns", () => {
    for (const pattern of ["(a)\\1", "(?=a)b", "(?<!x)y", "\\p{L}+", "\\u{1F600}", "([a-z", "\\-"])
      expect(claimPattern(pattern), pattern).toBeNull();
  });

  it("answers a catastrophic-backtracking pattern at once (it took hours with the backtracking engine)", () => {
    const definitions = [
      {
        path: ["code"],
        type: "string" as const,
        required: true,
        selectivelyDisclosable: false,
        constraints: { pattern: "^(a+)+$" },
      },
    ];
    expect(() => validateClaims(definitions, { code: `${"a".repeat(100_000)}!` })).toThrow(
      expect.objectContaining({
        details: [expect.objectContaining({ message: expect.stringContaining("must match") })],
      }),
    );
    expect(() => validateClaims(definitions, { code: "a".repeat(100_000) })).not.toThrow();
  });
});
