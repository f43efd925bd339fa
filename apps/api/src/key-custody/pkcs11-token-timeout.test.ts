// A token that stops answering (a hung network HSM): an operation is given up after `timeoutMs` as
// TokenUnavailableError (the 503 KeyCustodyUnavailable), requests fail at once while it has not returned,
// and the token is used again once it has. With a SoftHSM2 token of this file's own; the hang is an
// operation that does not settle (SoftHSM cannot be made to hang).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshSoftHsmToken, type SoftHsmToken, softHsmMissing } from "../../test/fixtures/softhsm";
import { Pkcs11Token, TokenUnavailableError } from "./pkcs11-token";

let hsm: SoftHsmToken;
let token: Pkcs11Token;

beforeAll(() => {
  if (softHsmMissing) return;
  hsm = freshSoftHsmToken("hung");
  token = new Pkcs11Token({ ...hsm.settings, timeoutMs: 200 });
});
afterAll(async () => {
  await token?.close();
  hsm?.remove();
});

const tokenInfo = () => token.run((module, _session, c) => module.C_GetTokenInfo(c.slot).label.trim());

describe.skipIf(softHsmMissing !== null)(
  `PKCS#11 operations that do not return${softHsmMissing ? ` [${softHsmMissing}]` : ""}`,
  () => {
    it("an operation is given up after timeoutMs; others fail at once until it returns; then the token answers again", async () => {
      expect(await tokenInfo()).toBe("hung");

      let finish: () => void = () => {};
      const started = Date.now();
      const hung = token.run(() => new Promise<void>((resolve) => (finish = resolve)));
      await expect(hung).rejects.toThrow(TokenUnavailableError);
      await expect(hung).rejects.toThrow(/did not answer within 200 ms/);
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThanOrEqual(190);
      expect(waited).toBeLessThan(2_000);

      // Still hung: no request waits for it.
      const atOnce = Date.now();
      await expect(tokenInfo()).rejects.toThrow(/has not answered an earlier operation yet/);
      expect(Date.now() - atOnce).toBeLessThan(100);
      expect((await token.reachable()).reachable).toBe(false);

      // It returns; the connection it held is finalised and a new one is opened.
      finish();
      await expect
        .poll(() => tokenInfo().catch((error: Error) => error.message), { timeout: 5_000 })
        .toBe("hung");
    });

    it("an operation that answers within the limit is not affected", async () => {
      const slow = await token.run(async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return "done";
      });
      expect(slow).toBe("done");
    });
  },
);
