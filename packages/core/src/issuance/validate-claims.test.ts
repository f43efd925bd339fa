import { describe, expect, it } from "vitest";
import { DomainError } from "../shared/errors";
import { disclosablePaths, validateClaims } from "./validate-claims";

const defs = [
  {
    path: ["given_name"],
    type: "string",
    required: true,
    selectivelyDisclosable: true,
    constraints: { maxLength: 5 },
  },
  {
    path: ["age"],
    type: "integer",
    required: false,
    selectivelyDisclosable: true,
    constraints: { minimum: 0, maximum: 150 },
  },
  { path: ["birthdate"], type: "date", required: false, selectivelyDisclosable: false },
  { path: ["address"], type: "object", required: false, selectivelyDisclosable: true },
  {
    path: ["address", "country"],
    type: "string",
    required: true,
    selectivelyDisclosable: true,
    constraints: { enum: ["NL", "DE"] },
  },
  { path: ["tags"], type: "array", required: false, selectivelyDisclosable: true },
] as any;

const codes = (fn: () => void) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError)
      return { code: e.code, details: e.details?.map((d) => `${d.code}:${d.target}`) };
    throw e;
  }
  return null;
};

describe("validateClaims", () => {
  it("accepts valid claims", () => {
    expect(
      codes(() =>
        validateClaims(defs, {
          given_name: "Erika",
          age: 40,
          birthdate: "1984-01-26",
          address: { country: "NL" },
          tags: [1],
        }),
      ),
    ).toBeNull();
  });
  it("names an unknown claim by its path, nested too", () => {
    expect(codes(() => validateClaims(defs, { given_name: "E", nickname: "x" }))).toEqual({
      code: "UnknownClaim",
      details: ["UnknownClaim:claims.nickname"],
    });
    expect(
      codes(() => validateClaims(defs, { given_name: "E", address: { country: "NL", city: "A" } }))?.details,
    ).toEqual(["UnknownClaim:claims.address.city"]);
  });
  it("reports types, constraints and missing required claims", () => {
    const r = codes(() =>
      validateClaims(defs, { age: 1.5, birthdate: "1984-13-01", address: { country: "FR" } }),
    );
    expect(r?.code).toBe("ValidationFailed");
    expect(r?.details).toEqual(
      expect.arrayContaining([
        "InvalidType:claims.age",
        "InvalidType:claims.birthdate",
        "ConstraintViolated:claims.address.country",
        "MissingClaim:claims.given_name",
      ]),
    );
    expect(codes(() => validateClaims(defs, { given_name: "toolong" }))?.details).toEqual([
      "ConstraintViolated:claims.given_name",
    ]);
    expect(codes(() => validateClaims(defs, { given_name: "E", age: 200 }))?.details).toEqual([
      "ConstraintViolated:claims.age",
    ]);
  });
  it("does not demand children of an absent optional object", () => {
    expect(codes(() => validateClaims(defs, { given_name: "E" }))).toBeNull();
    expect(codes(() => validateClaims(defs, { given_name: "E", address: {} }))?.details).toEqual([
      "MissingClaim:claims.address.country",
    ]);
  });
  it("takes nested claims whose parent is not declared; a dotted member name is not a path", () => {
    const nested = [
      { path: ["place", "city"], type: "string", required: true, selectivelyDisclosable: true },
      { path: ["place", "zip"], type: "string", required: false, selectivelyDisclosable: true },
      { path: ["extra", "note"], type: "string", required: false, selectivelyDisclosable: false },
    ] as any;
    expect(codes(() => validateClaims(nested, { place: { city: "Utrecht" } }))).toBeNull();
    expect(codes(() => validateClaims(nested, { place: { city: "Utrecht" }, extra: {} }))).toBeNull();
    // The undeclared parent of a required claim is required with it.
    expect(codes(() => validateClaims(nested, {}))?.details).toEqual(["MissingClaim:claims.place.city"]);
    expect(codes(() => validateClaims(nested, { place: { zip: "1234" } }))?.details).toEqual([
      "MissingClaim:claims.place.city",
    ]);
    expect(codes(() => validateClaims(nested, { place: "Utrecht" }))?.details).toEqual([
      "InvalidType:claims.place",
      "MissingClaim:claims.place.city",
    ]);
    expect(codes(() => validateClaims(nested, { place: { city: "U", other: 1 } }))).toEqual({
      code: "UnknownClaim",
      details: ["UnknownClaim:claims.place.other"],
    });
    expect(codes(() => validateClaims(nested, { "place.city": "Utrecht", place: { city: "U" } }))).toEqual({
      code: "UnknownClaim",
      details: ["UnknownClaim:claims.place.city"],
    });
  });

  it("lists the disclosable paths that are present", () => {
    expect(
      disclosablePaths(defs, { given_name: "E", birthdate: "1984-01-26", address: { country: "NL" } }),
    ).toEqual([["given_name"], ["address"], ["address", "country"]]);
  });
});

describe("claim patterns in validation", () => {
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
