import { describe, expect, it } from "vitest";
import { Caches } from "./caches";
import { claimPattern as cachedClaimPattern } from "./claim-pattern";

const caches = new Caches();
const claimPattern = (pattern: string) => cachedClaimPattern(caches, pattern);

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

  it("compiles a pattern once per server's caches", () => {
    const first = claimPattern("^x+$");
    expect(claimPattern("^x+$")).toBe(first);
    expect(cachedClaimPattern(new Caches(), "^x+$")).not.toBe(first);
  });
});
