import { describe, expect, it } from "vitest";
import { COUNTRY_CODES, isCountryCode } from "./countries";
import { ZCreateOrganisationRequest } from "./organisations";

describe("country codes", () => {
  it("lists the assigned ISO 3166-1 alpha-2 codes, sorted", () => {
    expect(COUNTRY_CODES.length).toBeGreaterThanOrEqual(249);
    expect(COUNTRY_CODES).toEqual([...COUNTRY_CODES].sort());
    for (const code of ["NL", "NE", "DE", "GB", "CI", "AX", "XK"]) expect(isCountryCode(code)).toBe(true);
  });

  it("refuses reserved, user-assigned and malformed codes", () => {
    for (const code of ["ZZ", "EU", "UK", "AA", "XA", "nl", "NLD", "528", ""])
      expect([code, isCountryCode(code)]).toEqual([code, false]);
  });

  it("an organisation's country must be one of them", () => {
    const organisation = { reference: "acme", displayName: "Acme" };
    expect(ZCreateOrganisationRequest.safeParse({ ...organisation, country: "NE" }).success).toBe(true);
    expect(ZCreateOrganisationRequest.safeParse({ ...organisation, country: null }).success).toBe(true);
    const refused = ZCreateOrganisationRequest.safeParse({ ...organisation, country: "ZZ" });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([
      ["country", "Not an assigned ISO 3166-1 alpha-2 country code."],
    ]);
    // A malformed code gets the one message about the form, not both.
    const malformed = ZCreateOrganisationRequest.safeParse({ ...organisation, country: "nl" });
    expect(malformed.error?.issues.map((issue) => issue.message)).toEqual([
      "Use an ISO 3166-1 alpha-2 code, e.g. NL.",
    ]);
  });
});
