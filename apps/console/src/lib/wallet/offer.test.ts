import { describe, expect, it } from "vitest";
import { parseOfferLink, readOffer, wellKnown } from "./offer";

describe("parseOfferLink", () => {
  it("reads an offer by value and by reference", () => {
    const offer = {
      credential_issuer: "https://issuer.example/issuers/iss_1",
      credential_configuration_ids: ["card"],
    };
    expect(
      parseOfferLink(
        `openid-credential-offer://?credential_offer=${encodeURIComponent(JSON.stringify(offer))}`,
      ),
    ).toEqual({ offer });
    expect(
      parseOfferLink("haip-vci://?credential_offer_uri=https%3A%2F%2Fissuer.example%2Foffers%2Fabc"),
    ).toEqual({ offerUri: "https://issuer.example/offers/abc" });
  });

  it("refuses what is not an offer link", () => {
    expect(() => parseOfferLink("hello")).toThrow(/not a credential offer link/);
    expect(() => parseOfferLink("openid-credential-offer://?x=1")).toThrow(/neither/);
    expect(() => parseOfferLink("openid-credential-offer://?credential_offer=%7Bnope")).toThrow(/not JSON/);
    expect(() =>
      parseOfferLink("openid-credential-offer://?credential_offer=%7B%7D&credential_offer_uri=x"),
    ).toThrow(/both/);
  });

  it("checks the members the wallet relies on", () => {
    expect(() => readOffer({ credential_configuration_ids: ["a"] })).toThrow(/credential_issuer/);
    expect(() =>
      readOffer({ credential_issuer: "https://i.example", credential_configuration_ids: [] }),
    ).toThrow(/credential_configuration_ids/);
  });
});

describe("wellKnown", () => {
  it("inserts the well-known segment before the identifier's path (RFC 8414 §3.1)", () => {
    expect(wellKnown("openid-credential-issuer", "https://api.example/issuers/iss_1")).toBe(
      "https://api.example/.well-known/openid-credential-issuer/issuers/iss_1",
    );
    expect(wellKnown("oauth-authorization-server", "https://api.example")).toBe(
      "https://api.example/.well-known/oauth-authorization-server",
    );
  });
});
