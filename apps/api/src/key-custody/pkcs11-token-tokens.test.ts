// Several tokens of one module on the module's one thread (docs/key-custody.md, *Several tokens of one
// module*): each token answers by its label with its own keys; one whose PIN is refused, or a label the
// thread was not given, fails alone while the others go on. Real SoftHSM2 tokens under one SOFTHSM2_CONF.
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshSoftHsmTokens, type SoftHsmTokens, softHsmMissing } from "../../test/fixtures/softhsm";
import { KeyNotInTokenError, Pkcs11Token, TokenUnavailableError } from "./pkcs11-token";

const WRONG_PIN = "not-the-pin-0000";
let hsm: SoftHsmTokens;
let module: Pkcs11Token;

beforeAll(() => {
  if (softHsmMissing) return;
  hsm = freshSoftHsmTokens(["alpha", "beta", "gamma"]);
  const [beta, gamma] = hsm.settings.moreTokens!;
  module = new Pkcs11Token({ ...hsm.settings, moreTokens: [beta!, { ...gamma!, pin: WRONG_PIN }] });
});
afterAll(async () => {
  await module?.close();
  hsm?.remove();
});

describe.skipIf(softHsmMissing !== null)(
  `several tokens of one PKCS#11 module on one thread (SoftHSM2)${softHsmMissing ? ` [${softHsmMissing}]` : ""}`,
  () => {
    it("each token answers by its label, with its own keys: a key made in one is not in the other", async () => {
      expect(module.labels).toEqual(["alpha", "beta", "gamma"]);
      expect(await module.request("tokenInfo", {}, "alpha")).toBe("alpha");
      expect(await module.request("tokenInfo", {}, "beta")).toBe("beta");
      expect(await module.request("tokenInfo", {})).toBe("alpha");
      const id = randomBytes(16);
      await module.request("generate", { id, label: "in beta", usage: "sign" }, "beta");
      const digest = createHash("sha256").update("hello").digest();
      expect((await module.request("sign", { id, digest }, "beta")).length).toBe(64);
      await expect(module.request("sign", { id, digest }, "alpha")).rejects.toBeInstanceOf(
        KeyNotInTokenError,
      );
      expect((await module.request("list", {}, "beta")).map((k) => k.label)).toEqual(["in beta"]);
      expect(await module.request("list", {}, "alpha")).toEqual([]);
    });

    it("a token whose PIN is refused, or a label the thread was not given, fails alone (never naming the PIN); the others go on", async () => {
      const refused = await module.request("tokenInfo", {}, "gamma").catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(TokenUnavailableError);
      expect((refused as Error).message).toMatch(/^login to the token 'gamma' failed: CKR_PIN_INCORRECT/);
      expect((refused as Error).message).not.toContain(WRONG_PIN);
      const unknown = await module.request("tokenInfo", {}, "delta").catch((error: unknown) => error);
      expect(unknown).toBeInstanceOf(TokenUnavailableError);
      expect((unknown as Error).message).toBe("the token 'delta' is not configured in this process");
      expect(await module.request("tokenInfo", {}, "alpha")).toBe("alpha");
      expect(await module.reachable("beta")).toEqual({ reachable: true });
      expect(await module.reachable("gamma")).toMatchObject({ reachable: false });
    });
  },
);
