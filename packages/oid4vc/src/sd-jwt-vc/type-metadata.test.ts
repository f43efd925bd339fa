import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildTypeMetadata, integrityMatches, parseTypeMetadataReference } from "./type-metadata";

const sri = (alg: "sha256" | "sha384" | "sha512", body: string) =>
  `${alg}-${createHash(alg).update(body).digest("base64")}`;

describe("integrityMatches (SD-JWT VC §9, SRI syntax)", () => {
  const body = '{"vct":"https://types.example/a"}';
  it("matches the document's digest, with the strongest algorithm given deciding", () => {
    expect(integrityMatches(body, sri("sha256", body))).toBe(true);
    expect(integrityMatches(body, `${sri("sha256", "other")} ${sri("sha384", body)}`)).toBe(true);
    // The strongest algorithm present decides: a matching sha256 does not save a wrong sha512.
    expect(integrityMatches(body, `${sri("sha256", body)} ${sri("sha512", "other")}`)).toBe(false);
    expect(integrityMatches(body, `${sri("sha512", "other")} ${sri("sha512", body)}`)).toBe(true);
  });
  it("refuses other documents and unsupported or malformed expressions", () => {
    expect(integrityMatches(body, sri("sha256", "other"))).toBe(false);
    expect(integrityMatches(body, "md5-abc")).toBe(false);
    expect(integrityMatches(body, "")).toBe(false);
  });
});

describe("Type Metadata", () => {
  it("reads vct, extends and extends#integrity, and nothing that is not a document", () => {
    expect(
      parseTypeMetadataReference({ vct: "a", extends: "b", "extends#integrity": "sha256-x", name: "A" }),
    ).toEqual({ vct: "a", extends: "b", extendsIntegrity: "sha256-x" });
    expect(parseTypeMetadataReference({ vct: "a" })).toEqual({ vct: "a" });
    for (const bad of [null, [], "a", { vct: 1 }, { vct: "a", extends: 2 }]) {
      expect(parseTypeMetadataReference(bad)).toBeNull();
    }
  });
  it("builds a document with sd always or never, and labels per locale", () => {
    expect(
      buildTypeMetadata({
        vct: "https://i.example/credentials/badge",
        name: "Badge",
        claims: [
          {
            path: ["name"],
            labels: [{ locale: "en", label: "Name" }],
            mandatory: true,
            selectivelyDisclosable: true,
          },
          { path: ["id"], mandatory: false, selectivelyDisclosable: false },
        ],
      }),
    ).toEqual({
      vct: "https://i.example/credentials/badge",
      name: "Badge",
      claims: [
        { path: ["name"], display: [{ locale: "en", label: "Name" }], mandatory: true, sd: "always" },
        { path: ["id"], mandatory: false, sd: "never" },
      ],
    });
  });
});
