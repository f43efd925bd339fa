import { describe, expect, it } from "vitest";
import { credentialActions } from "./credential-actions";

const statusList = { uri: "https://issuer.example/status-lists/1", idx: 7 };

describe("credentialActions", () => {
  it("offers Suspend and Revoke for an active credential", () => {
    expect(credentialActions({ status: "active", statusList })).toEqual(["suspend", "revoke"]);
  });

  it("offers Reinstate and Revoke for a suspended credential", () => {
    expect(credentialActions({ status: "suspended", statusList })).toEqual(["reinstate", "revoke"]);
  });

  it("offers nothing for a revoked or an expired credential", () => {
    expect(credentialActions({ status: "revoked", statusList })).toEqual([]);
    expect(credentialActions({ status: "expired", statusList })).toEqual([]);
  });

  it("offers nothing for a credential issued without a status list entry", () => {
    expect(credentialActions({ status: "active", statusList: null })).toEqual([]);
  });
});
