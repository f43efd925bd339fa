import { describe, expect, it } from "vitest";
import { parseTypeMetadataClaimRules, typeMetadataViolations } from "./type-metadata-rules";

describe("parseTypeMetadataClaimRules", () => {
  it("reads path, mandatory and sd with the specification's defaults", () => {
    expect(
      parseTypeMetadataClaimRules({
        vct: "https://x.example/t",
        claims: [{ path: ["a"], sd: "always", mandatory: true }, { path: ["b", null] }],
      }),
    ).toEqual([
      { path: ["a"], mandatory: true, sd: "always" },
      { path: ["b", null], mandatory: false, sd: "allowed" },
    ]);
    expect(parseTypeMetadataClaimRules({ vct: "https://x.example/t" })).toEqual([]);
  });

  it("is null for a document or claim entry it cannot read", () => {
    expect(parseTypeMetadataClaimRules([])).toBeNull();
    expect(parseTypeMetadataClaimRules({ claims: [{ path: [] }] })).toBeNull();
    expect(parseTypeMetadataClaimRules({ claims: [{ path: ["a"], sd: "sometimes" }] })).toBeNull();
    expect(parseTypeMetadataClaimRules({ claims: "a" })).toBeNull();
  });
});

describe("typeMetadataViolations", () => {
  const payload = {
    given_name: "Erika",
    family_name: "M",
    nationalities: ["DE", "FR"],
    address: { city: "B" },
  };
  const disclosedPaths = [["given_name"], ["nationalities", 0], ["address"]];

  it("accepts a presentation that keeps every rule", () => {
    expect(
      typeMetadataViolations(
        [
          { path: ["given_name"], sd: "always", mandatory: true },
          { path: ["family_name"], sd: "never", mandatory: true },
          { path: ["nationalities", 0], sd: "always", mandatory: false },
          { path: ["address", "city"], sd: "never", mandatory: false },
          { path: ["birthdate"], sd: "always", mandatory: true },
          { path: ["nickname"], sd: "never", mandatory: false },
        ],
        { payload, disclosedPaths },
      ),
    ).toEqual([]);
  });

  it("refuses a plain claim that must be disclosable, a disclosed one that must not, and a missing mandatory one", () => {
    expect(
      typeMetadataViolations(
        [
          { path: ["family_name"], sd: "always", mandatory: false },
          { path: ["given_name"], sd: "never", mandatory: false },
          { path: ["nationalities", null], sd: "always", mandatory: false },
          { path: ["document_number"], sd: "never", mandatory: true },
        ],
        { payload, disclosedPaths },
      ),
    ).toEqual([
      'claim ["family_name"] must be selectively disclosable but is not',
      'claim ["given_name"] must not be selectively disclosable but is',
      'claim ["nationalities",null] must be selectively disclosable but is not',
      'mandatory claim ["document_number"] is missing',
    ]);
  });
});
