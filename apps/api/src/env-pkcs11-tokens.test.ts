import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pinVariableSuffixOf, readEnv } from "./env";
import { envProblems as problems } from "./env-problems";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "env-pkcs11-tokens-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
// Any existing file stands in for the module: readEnv only checks that it is there.
const modulePath = path.join(dir, "libvendor-pkcs11.so");
fs.writeFileSync(modulePath, "");
const PIN_A = "s3cret-pin-issuers";
const PIN_B = "s3cret-pin-status";

describe("several PKCS#11 tokens of one module from the environment (docs/key-custody.md)", () => {
  it("a token's PIN variables: the label upper-cased, everything but A–Z and 0–9 as _", () => {
    expect(pinVariableSuffixOf("status-lists")).toBe("STATUS_LISTS");
    expect(pinVariableSuffixOf("Issuers 2026.a")).toBe("ISSUERS_2026_A");
  });

  it("PKCS11_TOKEN_LABELS: the first is the default token, the others follow, each with its PIN (variable or file)", () => {
    const pinFile = path.join(dir, "pin-status");
    fs.writeFileSync(pinFile, `${PIN_B}\n`);
    expect(
      readEnv({
        PKCS11_MODULE: modulePath,
        PKCS11_TOKEN_LABELS: " issuers , status-lists ",
        PKCS11_PIN_ISSUERS: PIN_A,
        PKCS11_PIN_FILE_STATUS_LISTS: pinFile,
        PKCS11_SESSIONS: "2",
      }).pkcs11,
    ).toEqual({
      modulePath,
      tokenLabel: "issuers",
      pin: PIN_A,
      moreTokens: [{ tokenLabel: "status-lists", pin: PIN_B }],
      sessions: 2,
    });
  });

  it("one label in PKCS11_TOKEN_LABELS is one token, as PKCS11_TOKEN_LABEL gives it", () => {
    expect(
      readEnv({ PKCS11_MODULE: modulePath, PKCS11_TOKEN_LABELS: "issuers", PKCS11_PIN_ISSUERS: PIN_A })
        .pkcs11,
    ).toEqual({ modulePath, tokenLabel: "issuers", pin: PIN_A });
  });

  it("a label without a PIN is named with the variables that would give it, and no PIN appears in any problem", () => {
    const found = problems({
      PKCS11_MODULE: modulePath,
      PKCS11_TOKEN_LABELS: "issuers,status-lists",
      PKCS11_PIN_ISSUERS: PIN_A,
    });
    expect(found).toEqual([
      "PKCS11_PIN_STATUS_LISTS or PKCS11_PIN_FILE_STATUS_LISTS must give the user PIN of the token 'status-lists'.",
    ]);
    expect(found.join(" ")).not.toContain(PIN_A);
  });

  it("refuses the single-token variables beside PKCS11_TOKEN_LABELS, both PIN sources for a label, an unreadable PIN file, an empty or repeated label and labels sharing a PIN variable", () => {
    const found = problems({
      PKCS11_MODULE: modulePath,
      PKCS11_TOKEN_LABELS: "issuers,,issuers,status-lists,status_lists,keys",
      PKCS11_TOKEN_LABEL: "issuers",
      PKCS11_PIN: PIN_A,
      PKCS11_PIN_ISSUERS: PIN_A,
      PKCS11_PIN_FILE_ISSUERS: path.join(dir, "pin-issuers"),
      PKCS11_PIN_STATUS_LISTS: PIN_B,
      PKCS11_PIN_FILE_KEYS: path.join(dir, "none"),
    });
    expect(found).toEqual([
      expect.stringMatching(/^PKCS11_TOKEN_LABEL is for one token: with PKCS11_TOKEN_LABELS/),
      expect.stringMatching(/^PKCS11_PIN is for one token: with PKCS11_TOKEN_LABELS/),
      expect.stringMatching(/^PKCS11_TOKEN_LABELS must list token labels separated by commas/),
      "Set PKCS11_PIN_ISSUERS or PKCS11_PIN_FILE_ISSUERS, not both.",
      "PKCS11_TOKEN_LABELS names the token 'issuers' twice.",
      "The tokens 'status-lists' and 'status_lists' would share the PIN variable PKCS11_PIN_STATUS_LISTS; relabel one of them.",
      expect.stringMatching(/^PKCS11_PIN_FILE_KEYS cannot be read/),
    ]);
    expect(found.join(" ")).not.toContain(PIN_A);
    expect(found.join(" ")).not.toContain(PIN_B);
  });
});
