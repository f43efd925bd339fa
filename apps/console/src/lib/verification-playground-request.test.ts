import { describe, expect, it } from "vitest";
import { type PlaygroundForm, playgroundRequest } from "./verification-playground-request";

const form = (overrides: Partial<PlaygroundForm> = {}): PlaygroundForm => ({
  policy: "over-18",
  invocation: "openid",
  transactionData: "",
  delivery: "link",
  origins: "",
  ...overrides,
});

describe("playgroundRequest (the verification playground's Verifications_Create request)", () => {
  it("a wallet link, by reference or by value", () => {
    expect(playgroundRequest(form()).request).toEqual({ policy: "over-18", invocation: "openid" });
    expect(playgroundRequest(form({ delivery: "link-by-value" })).request).toMatchObject({
      requestByValue: true,
    });
  });

  it("the Digital Credentials API with its expected origins, signed or unsigned", () => {
    expect(
      playgroundRequest(
        form({ delivery: "dc-api-signed", origins: "https://shop.example.com\nhttps://m.shop.example.com" }),
      ).request?.dcApi,
    ).toEqual({ origins: ["https://shop.example.com", "https://m.shop.example.com"], signed: true });
    expect(
      playgroundRequest(form({ delivery: "dc-api-unsigned", origins: "https://shop.example.com" })).request
        ?.dcApi,
    ).toEqual({ origins: ["https://shop.example.com"], signed: false });
  });

  it("refuses what the API refuses: no origin, a URL that is not an origin, transaction data that is not JSON", () => {
    expect(playgroundRequest(form({ delivery: "dc-api-signed" })).issue).toMatch(/^dcApi\.origins/);
    expect(
      playgroundRequest(form({ delivery: "dc-api-signed", origins: "https://shop.example.com/checkout" }))
        .issue,
    ).toMatch(/^dcApi\.origins/);
    expect(playgroundRequest(form({ transactionData: "[" })).issue).toMatch(/^Transaction data is not JSON/);
  });
});
