import type { TClaimDefinition } from "@cred/contracts/credential-configurations";
import { describe, expect, it } from "vitest";
import {
  claimsOfEveryVersion,
  pinnedTypeMetadata,
  typeMetadataOf,
  versionsAgreeWithPinned,
} from "./type-metadata-document";

const claim = (path: string[], required: boolean, selectivelyDisclosable = true, label?: string) =>
  ({
    path,
    type: "string",
    required,
    selectivelyDisclosable,
    ...(label ? { display: [{ locale: "en", name: label }] } : {}),
  }) as TClaimDefinition;

describe("type metadata claims across a configuration's versions", () => {
  it("is the one version's claims when there is one", () => {
    expect(claimsOfEveryVersion([[claim(["a"], true), claim(["b"], false, false)]])).toEqual([
      { path: ["a"], labels: undefined, mandatory: true, selectivelyDisclosable: true },
      { path: ["b"], labels: undefined, mandatory: false, selectivelyDisclosable: false },
    ]);
  });

  it("never calls mandatory what some version's credentials may lack, and says 'allowed' where sd differs", () => {
    const active = [claim(["a"], true, true, "A now"), claim(["level"], true), claim(["b"], true, false)];
    const older = [claim(["a"], true, true, "A before"), claim(["b"], true, true), claim(["gone"], true)];
    expect(claimsOfEveryVersion([active, older])).toEqual([
      {
        path: ["a"],
        labels: [{ locale: "en", label: "A now" }],
        mandatory: true,
        selectivelyDisclosable: true,
      },
      { path: ["level"], labels: undefined, mandatory: false, selectivelyDisclosable: true },
      { path: ["b"], labels: undefined, mandatory: true, selectivelyDisclosable: null },
      { path: ["gone"], labels: undefined, mandatory: false, selectivelyDisclosable: true },
    ]);
    const optionalBefore = [claim(["a"], false)];
    expect(claimsOfEveryVersion([[claim(["a"], true)], optionalBefore])[0]?.mandatory).toBe(false);
  });
});

describe("versions against a pinned document", () => {
  const pinnedOf = (claims: TClaimDefinition[]) =>
    pinnedTypeMetadata(
      typeMetadataOf({
        vct: "https://issuer.example/credentials/x",
        configurationName: "X",
        issuerName: "Issuer",
        schemaId: "x-v1",
        claims: claimsOfEveryVersion([claims]),
      }),
    ).text;
  const v1 = [claim(["a"], true, true, "A"), claim(["b"], false, false)];

  it("agree when a version only requires a claim the document leaves optional", () => {
    // Across versions `b` stays optional (v1 does not require it), so the document still holds.
    expect(
      versionsAgreeWithPinned(pinnedOf(v1), [[claim(["a"], true, true, "A"), claim(["b"], true, false)], v1]),
    ).toBe(true);
  });

  it("disagree on a new claim, a mandatory claim made optional, a changed sd or a new label", () => {
    const pinned = pinnedOf(v1);
    const changed = [
      [...v1, claim(["c"], false)],
      [claim(["a"], false, true, "A"), claim(["b"], false, false)],
      [claim(["a"], true, false, "A"), claim(["b"], false, false)],
      [claim(["a"], true, true, "Alpha"), claim(["b"], false, false)],
    ];
    for (const version of changed) expect(versionsAgreeWithPinned(pinned, [version, v1])).toBe(false);
  });
});
