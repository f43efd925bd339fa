import { describe, expect, it } from "vitest";
import { parseClaimValues } from "./claim-values";

describe("parseClaimValues (the policy form's claim values)", () => {
  it("reads name=value|value entries, typed as DCQL values", () => {
    expect(parseClaimValues(" age_over_18=true; nationality = DE|AT \n level=3;flag=false")).toEqual([
      { path: ["age_over_18"], values: [true] },
      { path: ["nationality"], values: ["DE", "AT"] },
      { path: ["level"], values: [3] },
      { path: ["flag"], values: [false] },
    ]);
  });

  it("is empty for blank text and leaves an entry without values for the API to refuse", () => {
    expect(parseClaimValues("  ;\n ")).toEqual([]);
    expect(parseClaimValues("given_name")).toEqual([{ path: ["given_name"], values: [] }]);
  });
});
