import { describe, expect, it } from "vitest";
import {
  extendTypeMetadataClaimRules,
  parseTypeMetadataClaimEntries,
  type TypeMetadataClaimRule,
} from "./type-metadata-rules";

/** SD-JWT VC "Extending Claim Metadata" and its "Limitations for `sd` and `mandatory`". */

const base: TypeMetadataClaimRule[] = [
  { path: ["given_name"], mandatory: false, sd: "allowed" },
  { path: ["family_name"], mandatory: true, sd: "always" },
  { path: ["nationality"], mandatory: false, sd: "never" },
];

describe("parseTypeMetadataClaimEntries", () => {
  it("keeps what the document states and leaves out what it omits", () => {
    expect(
      parseTypeMetadataClaimEntries({ vct: "x", claims: [{ path: ["a"] }, { path: ["b"], sd: "never" }] }),
    ).toEqual([{ path: ["a"] }, { path: ["b"], sd: "never" }]);
    expect(parseTypeMetadataClaimEntries({ vct: "x" })).toEqual([]);
    expect(parseTypeMetadataClaimEntries({ vct: "x", claims: [{ path: [] }] })).toBeNull();
  });
});

describe("extendTypeMetadataClaimRules", () => {
  it("inherits every rule of the extended type and adds the extending type's own", () => {
    const merged = extendTypeMetadataClaimRules(base, [{ path: ["birthdate"], sd: "always" }]);
    expect(merged).toEqual({
      rules: [...base, { path: ["birthdate"], mandatory: false, sd: "always" }],
    });
  });

  it("an entry for the same path overrides only what it states: allowed → always, optional → mandatory", () => {
    const merged = extendTypeMetadataClaimRules(base, [
      { path: ["given_name"], sd: "always", mandatory: true },
      { path: ["family_name"] }, // restates nothing: keeps mandatory and sd: always
    ]);
    expect(merged).toEqual({
      rules: [
        { path: ["given_name"], mandatory: true, sd: "always" },
        { path: ["family_name"], mandatory: true, sd: "always" },
        { path: ["nationality"], mandatory: false, sd: "never" },
      ],
    });
  });

  it("restating the same always / never / mandatory is no change", () => {
    expect(
      extendTypeMetadataClaimRules(base, [
        { path: ["family_name"], sd: "always", mandatory: true },
        { path: ["nationality"], sd: "never" },
      ]),
    ).toHaveProperty("rules");
  });

  it("refuses an extending type that relaxes sd (always/never to anything else) or mandatory (true to false)", () => {
    const merged = extendTypeMetadataClaimRules(base, [
      { path: ["family_name"], sd: "allowed", mandatory: false },
      { path: ["nationality"], sd: "always" },
    ]);
    expect(merged).toEqual({
      conflicts: [
        'claim ["family_name"] changes sd from always to allowed',
        'claim ["family_name"] changes mandatory from true to false',
        'claim ["nationality"] changes sd from never to always',
      ],
    });
  });

  it("does not change the rules it was given", () => {
    const copy = structuredClone(base);
    extendTypeMetadataClaimRules(base, [{ path: ["given_name"], sd: "never" }]);
    expect(base).toEqual(copy);
  });
});
