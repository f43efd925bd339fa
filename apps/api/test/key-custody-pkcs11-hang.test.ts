// A PKCS#11 token that hangs inside a synchronous call while a wallet asks for a credential
// (docs/key-custody.md, "The token's thread"): the server keeps answering other requests, the wallet gets
// `server_error` 503 with Retry-After after PKCS11_TIMEOUT_MS, nothing is written, and the same request
// succeeds once the token answers again. The hang is genuine: SoftHSM2 behind a shim module that blocks
// in native code in C_SignInit while a trigger file exists (fixtures/pkcs11-hang-shim.c).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialRequestReady, issuerInCustody, verifiesWithJwks } from "./fixtures/key-custody";
import { buildHangShim, type HangShim, hangShimMissing } from "./fixtures/pkcs11-hang-shim";
import { freshSoftHsmToken, type SoftHsmToken, softHsmMissing } from "./fixtures/softhsm";
import { call, startTestServer, type TestServer } from "./harness";

const TIMEOUT_MS = 2_000;
const missing = softHsmMissing ?? hangShimMissing;

let t: TestServer;
let hsm: SoftHsmToken;
let shim: HangShim;

beforeAll(async () => {
  if (missing) return;
  hsm = freshSoftHsmToken("hang-http");
  shim = buildHangShim(hsm.settings.modulePath);
  t = await startTestServer({
    pkcs11: { ...hsm.settings, modulePath: shim.modulePath, timeoutMs: TIMEOUT_MS },
  });
});
afterAll(async () => {
  shim?.release("C_SignInit");
  await t?.close();
  shim?.remove();
  hsm?.remove();
});

describe.skipIf(missing !== null)(
  `a PKCS#11 token hanging in C_SignInit during issuance${missing ? ` [${missing}]` : ""}`,
  () => {
    it("the server answers other requests meanwhile; the wallet gets server_error 503 with Retry-After after the timeout, nothing is written; the same request succeeds once the token answers", async () => {
      const { active } = await issuerInCustody(t, "pkcs11");
      const { transactionId, ask } = await credentialRequestReady(t, active);

      shim.hang("C_SignInit");
      const started = Date.now();
      const refusal = ask();
      // While the token's thread is blocked, the event loop serves everything else, promptly.
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (let i = 0; i < 3; i++) {
        const asked = Date.now();
        const health = await call(t, "GET", "/healthz");
        expect(health.status).toBe(200);
        expect(Date.now() - asked).toBeLessThan(TIMEOUT_MS / 2);
      }
      const refused = await refusal;
      expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.body.error).toBe("server_error");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(refused.headers.get("cache-control")).toBe("no-store");
      const pending = await call(t, "GET", `/v1.0/issuance-transactions/${transactionId}`, {
        key: t.adminKey,
      });
      expect(pending.body.data.status).not.toBe("completed");

      shim.release("C_SignInit");
      let issued: Awaited<ReturnType<typeof ask>> | undefined;
      await expect
        .poll(
          async () => {
            issued = await ask();
            return issued.status;
          },
          { timeout: 15_000, interval: 500 },
        )
        .toBe(200);
      const credential = issued!.body.credentials[0].credential as string;
      expect(await verifiesWithJwks(active, credential.split("~")[0]!)).toBe(true);
      const completed = await call(t, "GET", `/v1.0/issuance-transactions/${transactionId}`, {
        key: t.adminKey,
      });
      expect(completed.body.data.status).toBe("completed");
    }, 60_000);
  },
);
