import { describe, expect, it } from "vitest";
import { statusListReferenceOf } from "./status-reference";

describe("status claim of a referenced token", () => {
  it("names the list entry, or none", () => {
    const uri = "https://provider.example/lists/1";
    expect(statusListReferenceOf({ status_list: { idx: 7, uri } })).toEqual({ idx: 7, uri });
    expect(statusListReferenceOf(undefined)).toBeNull();
    // Another status mechanism alone names no status list.
    expect(statusListReferenceOf({ other_mechanism: {} })).toBeNull();
  });

  it("is malformed with a negative, fractional or missing index, no uri, or not an object", () => {
    for (const status of [
      { status_list: { idx: -1, uri: "https://x" } },
      { status_list: { idx: 1.5, uri: "https://x" } },
      { status_list: { uri: "https://x" } },
      { status_list: { idx: 1 } },
      "revoked",
      null,
    ]) {
      expect(statusListReferenceOf(status), JSON.stringify(status)).toBe("malformed");
    }
  });
});
