// A token that hangs inside a synchronous PKCS#11 call (C_SignInit, C_FindObjectsInit, C_Login) — a
// network HSM that stops answering — stalls only the token's thread: the event loop goes on, the operation
// is given up after timeoutMs as TokenUnavailableError, the thread is terminated and a fresh one takes
// over, and once the token answers again signing works and verifies. The hang is genuine: a PKCS#11 shim
// in front of a real SoftHSM2 token (test/fixtures/pkcs11-hang-shim.c) sleeps in native code while a
// trigger file exists.
import { createHash, createPublicKey, randomBytes, verify } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildHangShim, type HangShim, hangShimMissing } from "../../test/fixtures/pkcs11-hang-shim";
import { freshSoftHsmToken, type SoftHsmToken, softHsmMissing } from "../../test/fixtures/softhsm";
import { ecPointOf, publicJwkOfPoint } from "./ec-point";
import { Pkcs11Token, TokenUnavailableError } from "./pkcs11-token";

const TIMEOUT_MS = 1_500;
const missing = softHsmMissing ?? hangShimMissing;

let hsm: SoftHsmToken;
let shim: HangShim;
let token: Pkcs11Token;

beforeAll(() => {
  if (missing) return;
  hsm = freshSoftHsmToken("hanging");
  shim = buildHangShim(hsm.settings.modulePath);
  token = new Pkcs11Token({ ...hsm.settings, modulePath: shim.modulePath, timeoutMs: TIMEOUT_MS });
});
afterAll(async () => {
  // A thread still blocked in the shim would keep the process from exiting.
  for (const call of ["C_SignInit", "C_FindObjectsInit", "C_Login"] as const) shim?.release(call);
  await token?.close();
  shim?.remove();
  hsm?.remove();
});

/** Counts timer ticks (every 10 ms) while `work` runs: a blocked event loop counts none. */
async function ticksDuring<T>(work: Promise<T>): Promise<{ ticks: number; ms: number; outcome: unknown }> {
  let ticks = 0;
  const started = Date.now();
  const timer = setInterval(() => ticks++, 10);
  const outcome = await work.then(
    (value) => value,
    (error: unknown) => error,
  );
  clearInterval(timer);
  return { ticks, ms: Date.now() - started, outcome };
}

async function signingKey() {
  const id = randomBytes(16);
  const point = await token.request("generate", { id, label: "hang test", usage: "sign" });
  const publicKey = createPublicKey({
    key: publicJwkOfPoint(ecPointOf(Buffer.from(point)), "sign"),
    format: "jwk",
  });
  return {
    id,
    /** Signs in the token and checks the signature against the key's public point. */
    signsAndVerifies: async () => {
      const message = randomBytes(32);
      const digest = createHash("sha256").update(message).digest();
      const signature = await token.request("sign", { id, digest });
      return verify("sha256", message, { key: publicKey, dsaEncoding: "ieee-p1363" }, signature);
    },
  };
}

describe.skipIf(missing !== null)(
  `a PKCS#11 token hanging inside a synchronous call${missing ? ` [${missing}]` : ""}`,
  { timeout: 30_000 },
  () => {
    it("hung in C_Login while connecting: given up after timeoutMs, the event loop ticking meanwhile; connects once the token answers", async () => {
      shim.hang("C_Login");
      const hung = await ticksDuring(token.request("tokenInfo", {}));
      expect(hung.outcome).toBeInstanceOf(TokenUnavailableError);
      expect(String(hung.outcome)).toMatch(`did not answer within ${TIMEOUT_MS} ms`);
      expect(hung.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
      expect(hung.ms).toBeLessThan(TIMEOUT_MS + 2_000);
      expect(hung.ticks).toBeGreaterThanOrEqual(50);

      shim.release("C_Login");
      await expect
        .poll(() => token.request("tokenInfo", {}).catch((error: Error) => error.message), {
          timeout: 10_000,
        })
        .toBe("hanging");
    });

    it("hung in C_SignInit: the event loop goes on, the signature fails after timeoutMs, a fresh thread answers while the old one is still blocked, and signing verifies once the token answers", async () => {
      const key = await signingKey();
      expect(await key.signsAndVerifies()).toBe(true);

      shim.hang("C_SignInit");
      const signing = key.signsAndVerifies();
      // Another operation queued behind the blocked call on the same thread is refused with it, not answered wrongly.
      const queued = token.request("tokenInfo", {}).catch((error: unknown) => error);
      const hung = await ticksDuring(signing);
      expect(hung.outcome).toBeInstanceOf(TokenUnavailableError);
      expect(String(hung.outcome)).toMatch(`did not answer within ${TIMEOUT_MS} ms`);
      expect(hung.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
      expect(hung.ms).toBeLessThan(TIMEOUT_MS + 2_000);
      // 10 ms ticks through a 1.5 s hang: the main thread was never blocked (a loaded machine drops some).
      expect(hung.ticks).toBeGreaterThanOrEqual(50);
      expect(await queued).toBeInstanceOf(TokenUnavailableError);

      // The old thread is still blocked in C_SignInit; a fresh one initialises, logs in and answers.
      expect(await token.request("tokenInfo", {})).toBe("hanging");
      expect(await token.reachable()).toEqual({ reachable: true });

      // Its signature hangs as well: a second stuck thread. Beyond two, requests fail at once.
      const again = await ticksDuring(key.signsAndVerifies());
      expect(again.outcome).toBeInstanceOf(TokenUnavailableError);
      const atOnce = await ticksDuring(token.request("tokenInfo", {}));
      expect(String(atOnce.outcome)).toMatch(/has not answered an earlier operation yet/);
      expect(atOnce.ms).toBeLessThan(100);

      // The token answers again: the blocked calls return, their threads exit, and signing works.
      shim.release("C_SignInit");
      await expect
        .poll(() => key.signsAndVerifies().catch((error: Error) => error.message), { timeout: 10_000 })
        .toBe(true);
      const signatures = await Promise.all(Array.from({ length: 20 }, () => key.signsAndVerifies()));
      expect(signatures.every(Boolean)).toBe(true);
    });

    it("hung in C_FindObjectsInit (listing keys, a key's first use): given up after timeoutMs without blocking the event loop; works again after", async () => {
      const key = await signingKey();
      shim.hang("C_FindObjectsInit");
      const hung = await ticksDuring(token.request("list", {}));
      expect(hung.outcome).toBeInstanceOf(TokenUnavailableError);
      expect(hung.ticks).toBeGreaterThanOrEqual(50);
      // The fresh thread has no key handle yet: the signature's first step is the find, which hangs too.
      const firstUse = await ticksDuring(key.signsAndVerifies());
      expect(firstUse.outcome).toBeInstanceOf(TokenUnavailableError);

      shim.release("C_FindObjectsInit");
      await expect
        .poll(() => key.signsAndVerifies().catch((error: Error) => error.message), { timeout: 10_000 })
        .toBe(true);
      const listed = await token.request("list", {});
      expect(listed.map((k) => Buffer.from(k.id).toString("hex"))).toContain(key.id.toString("hex"));
    });

    it("an operation that answers within the limit is not affected", async () => {
      const key = await signingKey();
      const results = await Promise.all(Array.from({ length: 40 }, () => key.signsAndVerifies()));
      expect(results.every(Boolean)).toBe(true);
    });

    it("close() while a call hangs (shutdown) returns within timeoutMs instead of waiting for the call; the operation fails", async () => {
      const key = await signingKey();
      shim.hang("C_SignInit");
      const signing = key.signsAndVerifies().catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const closing = await ticksDuring(token.close());
      expect(closing.ms).toBeLessThan(TIMEOUT_MS + 1_000);
      expect(await signing).toBeInstanceOf(TokenUnavailableError);
      await expect(token.request("tokenInfo", {})).rejects.toThrow(/is closed/);
    });
  },
);
