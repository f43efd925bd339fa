import { describe, expect, it } from "vitest";
import { DomainError } from "../shared/errors";
import { KeyCustody, type KeyProvider } from "../shared/key-custody";
import { custodyOf, issuerKeyCustodyOf, resolveKeyCustody } from "./issuer-key-custody-purposes";

/** A provider that only has a name and, for token providers, the labels of its tokens. */
const provider = (name: "software" | "pkcs11", tokenLabels?: string[]) =>
  ({ name, ...(tokenLabels ? { tokenLabels } : {}) }) as unknown as KeyProvider;

const software = provider("software");
const tokenA = provider("pkcs11", ["a"]);
const tokenB = provider("pkcs11", ["b"]);

describe("KeyCustody.lookup (label → provider)", () => {
  const custody = new KeyCustody([software, tokenA, tokenB]);

  it("finds the provider reaching the named token, the name's first provider without a label, none for an unknown label", () => {
    expect(custody.lookup({ provider: "pkcs11", tokenLabel: "b" })).toBe(tokenB);
    expect(custody.lookup({ provider: "pkcs11", tokenLabel: null })).toBe(tokenA);
    expect(custody.lookup({ provider: "pkcs11", tokenLabel: "c" })).toBeUndefined();
    expect(custody.lookup({ provider: "software", tokenLabel: null })).toBe(software);
    expect(custody.tokenLabelOf({ provider: "pkcs11", tokenLabel: null })).toBe("a");
    expect(custody.tokenLabelOf({ provider: "software", tokenLabel: null })).toBeNull();
  });

  it("providerFor refuses a token this process does not reach with 503 KeyCustodyUnavailable", () => {
    expect(() => custody.providerFor({ provider: "pkcs11", tokenLabel: "c" })).toThrow(
      expect.objectContaining({ code: "KeyCustodyUnavailable" }),
    );
  });
});

describe("resolveKeyCustody", () => {
  const custody = new KeyCustody([software, tokenA, tokenB]);

  it("`{ provider }` alone covers every purpose; a pkcs11 choice records its token", () => {
    const resolved = resolveKeyCustody(custody, { provider: "pkcs11" });
    expect(resolved.keyProvider).toBe("pkcs11");
    expect(resolved.keyCustodyPurposes.tokenLabel).toBe("a");
    for (const purpose of [
      "credential_signing",
      "status_list_signing",
      "credential_request_encryption",
    ] as const)
      expect(
        custodyOf({ keyProvider: "pkcs11", keyCustodyPurposes: resolved.keyCustodyPurposes }, purpose),
      ).toEqual({ provider: "pkcs11", tokenLabel: "a" });
  });

  it("per-purpose choices override the default, each in its own token", () => {
    const resolved = resolveKeyCustody(custody, {
      provider: "software",
      purposes: {
        credentialSigning: { provider: "pkcs11", tokenLabel: "b" },
        credentialRequestEncryption: { provider: "pkcs11" },
      },
    });
    const row = { keyProvider: resolved.keyProvider, keyCustodyPurposes: resolved.keyCustodyPurposes };
    expect(issuerKeyCustodyOf(row)).toEqual({
      provider: "software",
      tokenLabel: null,
      purposes: {
        credentialSigning: { provider: "pkcs11", tokenLabel: "b" },
        statusListSigning: { provider: "software", tokenLabel: null },
        credentialRequestEncryption: { provider: "pkcs11", tokenLabel: "a" },
      },
    });
  });

  it("reports every unknown provider and token label, by member", () => {
    const noToken = new KeyCustody([software]);
    const refused = (() => {
      try {
        resolveKeyCustody(noToken, {
          provider: "software",
          tokenLabel: "x",
          purposes: { statusListSigning: { provider: "pkcs11" } },
        });
      } catch (error) {
        return error as DomainError;
      }
    })();
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused!.code).toBe("ValidationFailed");
    expect(refused!.details?.map((d) => [d.code, d.target])).toEqual([
      ["KeyTokenNotConfigured", "keyCustody.tokenLabel"],
      ["KeyProviderNotConfigured", "keyCustody.purposes.statusListSigning.provider"],
    ]);
  });

  it("a row written before purposes existed: every purpose follows keyProvider, in the platform's token", () => {
    expect(issuerKeyCustodyOf({ keyProvider: "pkcs11", keyCustodyPurposes: null }).purposes).toEqual({
      credentialSigning: { provider: "pkcs11", tokenLabel: null },
      statusListSigning: { provider: "pkcs11", tokenLabel: null },
      credentialRequestEncryption: { provider: "pkcs11", tokenLabel: null },
    });
  });
});
