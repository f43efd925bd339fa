import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readEnv } from "./env";
import { envProblems as problems } from "./env-problems";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "env-pkcs11-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
// Any existing file stands in for the module: readEnv only checks that it is there.
const modulePath = path.join(dir, "libvendor-pkcs11.so");
fs.writeFileSync(modulePath, "");
const PIN = "s3cret-pin-4711";

describe("PKCS#11 token settings from the environment (docs/key-custody.md)", () => {
  it("unset PKCS11_MODULE: no token, and the other variables are not looked at", () => {
    expect(readEnv({}).pkcs11).toBeUndefined();
    expect(readEnv({ PKCS11_TOKEN_LABEL: "x" }).pkcs11).toBeUndefined();
  });

  it("reads the module, the token label, the PIN and the session pool size", () => {
    expect(
      readEnv({
        PKCS11_MODULE: modulePath,
        PKCS11_TOKEN_LABEL: " issuers ",
        PKCS11_PIN: PIN,
        PKCS11_SESSIONS: "8",
      }).pkcs11,
    ).toEqual({ modulePath, tokenLabel: "issuers", pin: PIN, sessions: 8 });
  });

  it("reads the PIN from PKCS11_PIN_FILE (one trailing newline dropped)", () => {
    const pinFile = path.join(dir, "pin");
    fs.writeFileSync(pinFile, `${PIN}\n`);
    expect(
      readEnv({ PKCS11_MODULE: modulePath, PKCS11_TOKEN_LABEL: "t", PKCS11_PIN_FILE: pinFile }).pkcs11,
    ).toEqual({
      modulePath,
      tokenLabel: "t",
      pin: PIN,
    });
  });

  it("names every problem, and never the PIN", () => {
    const found = problems({
      PKCS11_MODULE: path.join(dir, "missing.so"),
      PKCS11_PIN: PIN,
      PKCS11_PIN_FILE: path.join(dir, "pin"),
      PKCS11_SESSIONS: "0",
    });
    expect(found).toEqual([
      expect.stringMatching(/^PKCS11_MODULE names no file/),
      expect.stringMatching(/^PKCS11_TOKEN_LABEL must name the token/),
      "Set PKCS11_PIN or PKCS11_PIN_FILE, not both.",
      expect.stringMatching(/^PKCS11_SESSIONS must be a whole number from 1 to 64/),
    ]);
    expect(found.join(" ")).not.toContain(PIN);
    expect(problems({ PKCS11_MODULE: modulePath, PKCS11_TOKEN_LABEL: "t" })).toEqual([
      "PKCS11_PIN or PKCS11_PIN_FILE must give the token's user PIN.",
    ]);
    expect(
      problems({
        PKCS11_MODULE: modulePath,
        PKCS11_TOKEN_LABEL: "t",
        PKCS11_PIN_FILE: path.join(dir, "none"),
      }),
    ).toEqual([expect.stringMatching(/^PKCS11_PIN_FILE cannot be read/)]);
  });
});
