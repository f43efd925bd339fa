import { describe, expect, it } from "vitest";
import { hasClaim, minimiseClaims, selectClaims } from "./claims-path";

// OpenID4VP 1.0 §7.3 "Claims Path Pointer Example".
const credential = {
  name: "Arthur Dent",
  address: { street_address: "42 Market Street", locality: "Milliways", postal_code: "12345" },
  degrees: [
    { type: "Bachelor of Science", university: "University of Betelgeuse" },
    { type: "Master of Science", university: "University of Betelgeuse" },
  ],
  nationalities: ["British", "Betelgeusian"],
};

describe("selectClaims (spec §7.3 example)", () => {
  it("selects the examples of the specification", () => {
    expect(selectClaims(credential, ["name"])).toEqual({ ok: true, values: ["Arthur Dent"] });
    expect(selectClaims(credential, ["address"])).toEqual({ ok: true, values: [credential.address] });
    expect(selectClaims(credential, ["address", "street_address"])).toEqual({
      ok: true,
      values: ["42 Market Street"],
    });
    expect(selectClaims(credential, ["degrees", null, "type"])).toEqual({
      ok: true,
      values: ["Bachelor of Science", "Master of Science"],
    });
    expect(selectClaims(credential, ["nationalities", 1])).toEqual({ ok: true, values: ["Betelgeusian"] });
  });

  it("aborts on type mismatches, empty selections and invalid components", () => {
    expect(selectClaims(credential, ["name", "first"]).ok).toBe(false);
    expect(selectClaims(credential, ["address", null]).ok).toBe(false);
    expect(selectClaims(credential, ["address", 0]).ok).toBe(false);
    expect(selectClaims(credential, ["missing"]).ok).toBe(false);
    expect(selectClaims(credential, ["nationalities", 5]).ok).toBe(false);
    expect(selectClaims(credential, ["nationalities", -1]).ok).toBe(false);
    expect(selectClaims(credential, []).ok).toBe(false);
  });

  it("does not walk the prototype chain", () => {
    expect(hasClaim({}, ["constructor"])).toBe(false);
    expect(hasClaim({}, ["__proto__"])).toBe(false);
  });
});

describe("minimiseClaims", () => {
  it("keeps only the requested paths", () => {
    expect(minimiseClaims(credential, [["name"], ["address", "postal_code"]])).toEqual({
      name: "Arthur Dent",
      address: { postal_code: "12345" },
    });
  });

  it("keeps whole sub-objects when the path ends on them", () => {
    expect(minimiseClaims(credential, [["address"]])).toEqual({ address: credential.address });
  });

  it("projects through arrays with null and indices", () => {
    expect(minimiseClaims(credential, [["degrees", null, "type"]])).toEqual({
      degrees: [{ type: "Bachelor of Science" }, { type: "Master of Science" }],
    });
    expect(minimiseClaims(credential, [["nationalities", 1]])).toEqual({ nationalities: ["Betelgeusian"] });
  });

  it("merges overlapping paths", () => {
    expect(
      minimiseClaims(credential, [["address", "locality"], ["address"], ["degrees", 0, "type"]]),
    ).toEqual({
      address: credential.address,
      degrees: [{ type: "Bachelor of Science" }],
    });
  });

  it("drops absent paths and returns {} when nothing was asked", () => {
    expect(minimiseClaims(credential, [["missing"], ["address", "country"]])).toEqual({});
    expect(minimiseClaims(credential, [])).toEqual({});
  });

  it("never lets over-disclosed claims through", () => {
    const disclosed = { given_name: "Erika", family_name: "Mustermann", birthdate: "1964-08-12", iss: "x" };
    const out = minimiseClaims(disclosed, [["given_name"]]);
    expect(out).toEqual({ given_name: "Erika" });
    expect(Object.keys(out)).not.toContain("birthdate");
  });
});
