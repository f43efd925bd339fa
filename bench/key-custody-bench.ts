// `pnpm bench --keys pkcs11`: our issuance and verification flows with the bench issuer's keys made in
// software (sealed in the database) and in a PKCS#11 token (a fresh SoftHSM2 token, as in the tests),
// alternated on fresh servers. The question it answers (#27): what signing in the token costs a flow.
// Both servers get the token's settings, so the only difference is where the issuer's keys live.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { roundRatios, runAlternated, settingRatios, writeSettingsReport } from "./alternated-settings";
import type { BenchOptions } from "./args";

const SETTINGS = ["software", "pkcs11"] as const;

/** Debian's (and Ubuntu's) SoftHSM2 module; SOFTHSM2_MODULE overrides. */
const MODULE_CANDIDATES = [
  process.env.SOFTHSM2_MODULE,
  "/usr/lib/softhsm/libsofthsm2.so",
  "/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so",
  "/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so",
].filter((p): p is string => !!p);

/** A fresh SoftHSM2 token in a directory of its own: the PKCS11_* variables for the server, and removal. */
function freshToken(): { env: Record<string, string>; remove(): void } {
  const modulePath = MODULE_CANDIDATES.find((p) => fs.existsSync(p));
  if (!modulePath)
    throw new Error(
      `--keys pkcs11 needs SoftHSM2 (apt-get install softhsm2); looked in ${MODULE_CANDIDATES}`,
    );
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "bench-softhsm-"));
  const conf = path.join(root, "softhsm2.conf");
  fs.mkdirSync(path.join(root, "tokens"));
  fs.writeFileSync(conf, `directories.tokendir = ${path.join(root, "tokens")}\nobjectstore.backend = file\n`);
  const label = "bench";
  const pin = "bench-pin-4711";
  execFileSync(
    "softhsm2-util",
    ["--init-token", "--free", "--label", label, "--pin", pin, "--so-pin", "bench-so-pin-0815"],
    { env: { ...process.env, SOFTHSM2_CONF: conf }, stdio: "ignore" },
  );
  return {
    env: { SOFTHSM2_CONF: conf, PKCS11_MODULE: modulePath, PKCS11_TOKEN_LABEL: label, PKCS11_PIN: pin },
    remove: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

/** Runs the flows with the issuer's keys in software and in the token, alternated; returns the exit status. */
export async function runKeyCustodyBench(options: BenchOptions): Promise<number> {
  const started = new Date();
  const token = freshToken();
  try {
    const { runs, notes } = await runAlternated(options, "keys", SETTINGS, (setting) => ({
      env: token.env,
      issuer: { keyCustody: { provider: setting } },
    }));
    return writeSettingsReport({
      name: "key-custody",
      title: "Issuer keys in software and in a PKCS#11 token",
      started,
      options,
      what:
        "Both servers are given a fresh SoftHSM2 token (PKCS11_*); the bench issuer is created with " +
        "`keyCustody.provider` software or pkcs11, so its signing key (credentials and status lists) is sealed in " +
        "the database or generated in the token. A network HSM adds its round trip to each signature on top.",
      runs,
      ratios: [...settingRatios(runs, "software", "pkcs11"), ...roundRatios(runs, "software", "pkcs11")],
      notes,
    });
  } finally {
    token.remove();
  }
}
