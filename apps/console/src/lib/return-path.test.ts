import { describe, expect, it } from "vitest";
import { returnPathAfterSignIn, signInPathFor } from "./return-path";

const origin = "https://console.example.com";

describe("the page to return to after signing in", () => {
  it("is the path asked for, with its query and fragment", () => {
    expect(returnPathAfterSignIn("/issuers?pageSize=2", origin)).toBe("/issuers?pageSize=2");
    expect(returnPathAfterSignIn("/issuers/iss_1#keys", origin)).toBe("/issuers/iss_1#keys");
    expect(returnPathAfterSignIn("/audit/../webhooks", origin)).toBe("/webhooks");
  });

  it("is the dashboard when nothing, sign-in itself or another origin was asked for", () => {
    for (const requested of [
      null,
      "",
      "/",
      "/?next=/issuers",
      "https://evil.example/phish",
      "http://console.example.com/issuers",
      "//evil.example/phish",
      "/\\evil.example/phish",
      "/\t/evil.example/phish",
      "/%09/evil.example",
      "javascript:alert(1)",
      "issuers",
    ]) {
      const path = returnPathAfterSignIn(requested, origin);
      expect([requested, new URL(path, origin).origin]).toEqual([requested, origin]);
      if (requested !== "/%09/evil.example") expect([requested, path]).toEqual([requested, "/dashboard"]);
    }
  });

  it("is carried in the sign-in page's address", () => {
    expect(signInPathFor("/issuers?pageSize=2")).toBe("/?next=%2Fissuers%3FpageSize%3D2");
    expect(signInPathFor("/")).toBe("/");
    expect(signInPathFor("/webhooks", { expired: true })).toBe("/?expired=1&next=%2Fwebhooks");
    const back = new URL(signInPathFor("/issuers?pageSize=2"), origin).searchParams.get("next");
    expect(returnPathAfterSignIn(back, origin)).toBe("/issuers?pageSize=2");
  });
});
