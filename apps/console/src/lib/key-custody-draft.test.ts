import type { TIssuerKeyCustody } from "@cred/contracts/issuers";
import { describe, expect, it } from "vitest";
import { keyCustodyDraftOf, keyCustodyOf } from "./key-custody-draft";

const software = { provider: "software" as const, tokenLabel: null };
const token = { provider: "pkcs11" as const, tokenLabel: "issuers" };

describe("the issuer forms' key custody fields", () => {
  it("a new issuer: software for every purpose, sent as { provider } alone", () => {
    expect(keyCustodyOf(keyCustodyDraftOf())).toEqual({ provider: "software" });
  });

  it("an issuer with signing in the token: the purpose differs from the default, and the token label is kept", () => {
    const custody: TIssuerKeyCustody = {
      ...software,
      purposes: {
        credentialSigning: token,
        statusListSigning: software,
        credentialRequestEncryption: software,
      },
    };
    const draft = keyCustodyDraftOf(custody);
    expect(draft).toEqual({
      provider: "software",
      tokenLabel: "issuers",
      purposes: {
        credentialSigning: "pkcs11",
        statusListSigning: "default",
        credentialRequestEncryption: "default",
      },
    });
    expect(keyCustodyOf(draft)).toEqual({
      provider: "software",
      purposes: { credentialSigning: { provider: "pkcs11", tokenLabel: "issuers" } },
    });
  });

  it("a token default with encryption in software; an emptied label sends none (the platform's token)", () => {
    const custody: TIssuerKeyCustody = {
      ...token,
      purposes: { credentialSigning: token, statusListSigning: token, credentialRequestEncryption: software },
    };
    const draft = keyCustodyDraftOf(custody);
    expect(keyCustodyOf(draft)).toEqual({
      provider: "pkcs11",
      tokenLabel: "issuers",
      purposes: { credentialRequestEncryption: { provider: "software" } },
    });
    expect(keyCustodyOf({ ...draft, tokenLabel: " " })).toEqual({
      provider: "pkcs11",
      purposes: { credentialRequestEncryption: { provider: "software" } },
    });
  });
});
