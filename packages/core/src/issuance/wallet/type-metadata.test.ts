import { describe, expect, it } from "vitest";
import type { TClaimDefinition } from "../../credential-configurations";
import { claimsOfEveryVersion } from "./type-metadata";

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
