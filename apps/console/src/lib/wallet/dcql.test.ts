import { describe, expect, it } from "vitest";
import { type Candidate, matchDcql, pathLabel } from "./dcql";

const card: Candidate = {
  id: "card",
  claims: {
    vct: "https://example.com/card",
    given_name: "Erika",
    address: { country: "DE", street: "Heidestraße 17" },
    nationalities: ["DE", "AT"],
  },
};
const other: Candidate = { id: "other", claims: { vct: "https://example.com/other", given_name: "Max" } };

describe("matchDcql", () => {
  it("matches by vct_values and the requested claim paths, disclosing exactly those", () => {
    const { matches, missing } = matchDcql(
      {
        credentials: [
          {
            id: "q",
            format: "dc+sd-jwt",
            meta: { vct_values: ["https://example.com/card"] },
            claims: [{ path: ["given_name"] }, { path: ["address", "country"] }],
          },
        ],
      },
      [card, other],
    );
    expect(missing).toEqual([]);
    expect(matches[0]!.candidates).toEqual([
      { credentialId: "card", paths: [["given_name"], ["address", "country"]] },
    ]);
  });

  it("needs every requested claim, and a value among `values` where given", () => {
    const query = (claims: { path: (string | number | null)[]; values?: unknown[] }[]) => ({
      credentials: [{ id: "q", format: "dc+sd-jwt", claims }],
    });
    expect(matchDcql(query([{ path: ["family_name"] }]), [card]).missing).toEqual(["q"]);
    expect(matchDcql(query([{ path: ["address", "country"], values: ["FR"] }]), [card]).missing).toEqual([
      "q",
    ]);
    expect(matchDcql(query([{ path: ["nationalities", null], values: ["AT"] }]), [card]).missing).toEqual([]);
    // Another format is never answered with an SD-JWT VC.
    expect(matchDcql({ credentials: [{ id: "q", format: "mso_mdoc", claims: [] }] }, [card]).missing).toEqual(
      ["q"],
    );
  });

  it("takes the first claim set the credential satisfies", () => {
    const { matches } = matchDcql(
      {
        credentials: [
          {
            id: "q",
            format: "dc+sd-jwt",
            claims: [
              { id: "a", path: ["family_name"] },
              { id: "b", path: ["given_name"] },
            ],
            claim_sets: [["a"], ["b"]],
          },
        ],
      },
      [card],
    );
    expect(matches[0]!.candidates[0]!.paths).toEqual([["given_name"]]);
  });

  it("answers the first satisfiable option of each credential set; a required set unmet is missing", () => {
    const dcql = {
      credentials: [
        { id: "card", format: "dc+sd-jwt", meta: { vct_values: ["https://example.com/card"] } },
        { id: "pid", format: "dc+sd-jwt", meta: { vct_values: ["https://example.com/pid"] } },
      ],
      credential_sets: [{ options: [["pid"], ["card"]] }, { options: [["pid"]], required: false }],
    };
    const { matches, missing } = matchDcql(dcql, [card]);
    expect(matches.map((m) => m.query.id)).toEqual(["card"]);
    expect(missing).toEqual([]);
    expect(matchDcql({ ...dcql, credential_sets: [{ options: [["pid"]] }] }, [card]).missing).toEqual([
      "pid",
    ]);
  });
});

describe("pathLabel", () => {
  it("reads as people write claim paths", () => {
    expect(pathLabel(["address", "street"])).toBe("address.street");
    expect(pathLabel(["nationalities", 0])).toBe("nationalities[0]");
    expect(pathLabel(["degrees", null, "type"])).toBe("degrees[*].type");
  });
});
