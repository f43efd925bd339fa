import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readEnv } from "./env";
import { envProblems as problems } from "./env-problems";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "env-pkcs11-timeout-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
// Any existing file stands in for the module: readEnv only checks that it is there.
const modulePath = path.join(dir, "libvendor-pkcs11.so");
fs.writeFileSync(modulePath, "");
const base = { PKCS11_MODULE: modulePath, PKCS11_TOKEN_LABEL: "issuers", PKCS11_PIN: "pin-0815" };

describe("PKCS11_TIMEOUT_MS (docs/key-custody.md)", () => {
  it("is read in milliseconds; unset leaves the default to the token", () => {
    expect(readEnv({ ...base, PKCS11_TIMEOUT_MS: "2500" }).pkcs11?.timeoutMs).toBe(2500);
    expect(readEnv(base).pkcs11).not.toHaveProperty("timeoutMs");
  });

  it("refuses values outside 100–600000", () => {
    for (const value of ["0", "99", "600001", "soon"])
      expect(problems({ ...base, PKCS11_TIMEOUT_MS: value })).toEqual([
        expect.stringMatching(/^PKCS11_TIMEOUT_MS must be a whole number from 100 to 600000/),
      ]);
  });
});
