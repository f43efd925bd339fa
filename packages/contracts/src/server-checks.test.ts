import { describe, expect, it } from "vitest";
import { zAllowedRedirectUris, zWalletAttestation } from "./issuers";
import { serverChecksInstalled } from "./server-checks";

// What a browser gets: the contract alone, without the server's checks (core installs those).
const ARMOURED_GARBAGE = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----";

describe("the contract's structural checks (no server checks installed)", () => {
  it("has none installed", () => {
    expect(serverChecksInstalled()).toBe(false);
  });

  it("takes one armoured certificate block, which only the server parses", () => {
    expect(zWalletAttestation.safeParse({ trustedRoots: [ARMOURED_GARBAGE] }).success).toBe(true);
  });

  it("refuses what is no certificate block, or two, with the server's message and path", () => {
    for (const pem of ["nope", `${ARMOURED_GARBAGE}\n${ARMOURED_GARBAGE}`]) {
      const result = zWalletAttestation.safeParse({ trustedRoots: [pem] });
      expect(result.error?.issues).toEqual([
        expect.objectContaining({
          path: ["trustedRoots", 0],
          message: "Give one PEM-encoded X.509 CA certificate.",
        }),
      ]);
    }
  });

  it("takes an absolute URI without fragment and refuses others; scheme rules are the server's", () => {
    expect(zAllowedRedirectUris.safeParse(["https://wallet.example/cb", "javascript:alert(1)"]).success).toBe(
      true,
    );
    for (const uri of ["/relative", "https://wallet.example/cb#x"]) {
      expect(zAllowedRedirectUris.safeParse([uri]).error?.issues[0]?.path).toEqual([0]);
    }
  });
});
