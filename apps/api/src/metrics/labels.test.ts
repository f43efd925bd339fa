import { describe, expect, it } from "vitest";
import { consoleProcedureLabel, oauthErrorLabel, statusClass, WALLET_ENDPOINTS } from "./labels";

describe("metric labels", () => {
  it("names a console call by its procedure key, and nothing a caller invents", () => {
    expect(consoleProcedureLabel("issuers.list")).toBe("issuers.list");
    expect(consoleProcedureLabel("issuers.list,issuers.get")).toBe("batch");
    expect(consoleProcedureLabel("iss_01JZ0000000000000000000000")).toBe("unknown");
    expect(consoleProcedureLabel("")).toBe("unknown");
  });

  it("keeps OAuth error codes from the specifications and counts any other as other", () => {
    expect(oauthErrorLabel("invalid_grant")).toBe("invalid_grant");
    expect(oauthErrorLabel("use_dpop_nonce")).toBe("use_dpop_nonce");
    expect(oauthErrorLabel("made_up_by_someone")).toBe("other");
  });

  it("gives status classes and wallet endpoint names without parameters", () => {
    expect([200, 302, 404, 503].map(statusClass)).toEqual(["2xx", "3xx", "4xx", "5xx"]);
    for (const name of Object.values(WALLET_ENDPOINTS)) expect(name).toMatch(/^[a-z_]+$/);
  });
});
