import { describe, expect, it } from "vitest";
import { ownStatusList } from "./status-check";

const BASE = "https://platform.example/base";
const ISSUER = "iss_01m82qffejf799f8h0rb8hryse";
const LIST = "sl_01m82qffejf799f8h0rb8hryse";

describe("ownStatusList", () => {
  it("reads the issuer and list of one of our list URLs", () => {
    expect(ownStatusList(`${BASE}/`, `${BASE}/issuers/${ISSUER}/status-lists/${LIST}`)).toEqual({
      issuerId: ISSUER,
      listId: LIST,
    });
  });

  it("is null for anything else, without throwing", () => {
    for (const uri of [
      `https://other.example/base/issuers/${ISSUER}/status-lists/${LIST}`,
      `${BASE}/issuers/%E0%A4%A/status-lists/${LIST}`,
      `${BASE}/issuers/${ISSUER}/status-lists/${LIST}?x=1`,
      `${BASE}/issuers/${ISSUER}/status-lists/${LIST}/more`,
      `${BASE}/elsewhere/${ISSUER}/status-lists/${LIST}`,
      `${BASE}/issuers/${ISSUER}/status-lists/sl_short`,
      `${BASE}x/issuers/${ISSUER}/status-lists/${LIST}`,
    ]) {
      expect(ownStatusList(BASE, uri), uri).toBeNull();
    }
  });
});
