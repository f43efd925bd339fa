// The PKCS#11 key provider on its own, against a fresh SoftHSM2 token (docs/key-custody.md).
import { createECDH } from "node:crypto";
import { isKeyCustodyUnavailable } from "@cred/core";
import { signEs256Jwt } from "@cred/oid4vc";
import { compactVerify, importJWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pkcs11KeyProvider } from "../src/key-custody/pkcs11-key-provider";
import { freshSoftHsmToken, type SoftHsmToken, softHsmMissing } from "./fixtures/softhsm";

let hsm: SoftHsmToken;
let provider: Pkcs11KeyProvider;
let Provider: typeof Pkcs11KeyProvider;
beforeAll(async () => {
  if (softHsmMissing) return;
  // Imported here: the provider loads the optional native binding, which a machine may lack (then the file skips).
  Provider = (await import("../src/key-custody/pkcs11-key-provider")).Pkcs11KeyProvider;
  hsm = freshSoftHsmToken("provider-test");
  provider = new Provider({ ...hsm.settings, sessions: 2 });
});
afterAll(async () => {
  await provider?.close();
  hsm?.remove();
});

const stored = (generated: { providerKeyRef: string | null }) => ({
  provider: "pkcs11",
  providerKeyRef: generated.providerKeyRef,
  privateKeyCipher: null,
  sealedFor: "unused",
});

describe.skipIf(softHsmMissing !== null)(
  `Pkcs11KeyProvider (SoftHSM2)${softHsmMissing ? ` [${softHsmMissing}]` : ""}`,
  () => {
    it("signs ES256 JWS in the token that jose verifies with the public key read back from it, from many requests at once over a small session pool", async () => {
      const key = await provider.generate({ usage: "sign", sealedFor: "x", label: "sign test" });
      expect(key).toMatchObject({ provider: "pkcs11", privateKeyCipher: null });
      expect(await provider.publicJwk(stored(key))).toEqual(key.publicJwk);
      const signer = await provider.signingKey(stored(key));
      const verifier = await importJWK(key.publicJwk, "ES256");
      const jwts = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          signEs256Jwt({ alg: "ES256", kid: key.publicJwk.kid }, { i }, signer),
        ),
      );
      for (const [i, jwt] of jwts.entries()) {
        const { payload } = await compactVerify(jwt, verifier);
        expect(JSON.parse(Buffer.from(payload).toString())).toEqual({ i });
      }
    });

    it("derives the ECDH-ES shared secret in the token (CKM_ECDH1_DERIVE), equal to node:crypto's", async () => {
      const key = await provider.generate({ usage: "derive", sealedFor: "x", label: "derive test" });
      expect(key.publicJwk).toMatchObject({ alg: "ECDH-ES", use: "enc" });
      const wallet = createECDH("prime256v1");
      wallet.generateKeys();
      const z = await provider.deriveSharedSecret(stored(key), wallet.getPublicKey());
      const issuerPoint = Buffer.concat([
        Buffer.from([4]),
        Buffer.from(key.publicJwk.x!, "base64url"),
        Buffer.from(key.publicJwk.y!, "base64url"),
      ]);
      expect(Buffer.from(z)).toEqual(wallet.computeSecret(issuerPoint));
      // A derive key does not sign.
      const signer = await provider.signingKey(stored(key));
      await expect(signEs256Jwt({ alg: "ES256" }, {}, signer)).rejects.toSatisfy(isKeyCustodyUnavailable);
    });

    it("destroys a key: it is gone from the token, and destroying it again is no error", async () => {
      const key = await provider.generate({ usage: "sign", sealedFor: "x", label: "destroy test" });
      expect(await provider.holds(stored(key))).toBe(true);
      expect((await provider.listKeys()).map((k) => k.providerKeyRef)).toContain(key.providerKeyRef);
      await provider.destroy(stored(key));
      expect(await provider.holds(stored(key))).toBe(false);
      expect((await provider.listKeys()).map((k) => k.providerKeyRef)).not.toContain(key.providerKeyRef);
      await provider.destroy(stored(key));
    });

    it("while the token is away: status unreachable and every operation a 503 KeyCustodyUnavailable; after: works again", async () => {
      const key = await provider.generate({ usage: "sign", sealedFor: "x", label: "away test" });
      const signer = await provider.signingKey(stored(key));
      hsm.takeAway();
      try {
        expect(await provider.status()).toMatchObject({
          reachable: false,
          location: "PKCS#11 token 'provider-test'",
        });
        const refused = await signEs256Jwt({ alg: "ES256" }, {}, signer).catch((error: unknown) => error);
        expect(isKeyCustodyUnavailable(refused)).toBe(true);
        expect(refused).toMatchObject({ status: 503, headers: { "Retry-After": "5" } });
        expect(String((refused as Error).message)).not.toContain(hsm.settings.pin);
        await expect(provider.generate({ usage: "sign", sealedFor: "x", label: "y" })).rejects.toSatisfy(
          isKeyCustodyUnavailable,
        );
      } finally {
        hsm.bringBack();
      }
      await expect
        .poll(async () => (await provider.status()).reachable, { timeout: 10_000, interval: 300 })
        .toBe(true);
      const jwt = await signEs256Jwt({ alg: "ES256" }, { back: true }, signer);
      await expect(compactVerify(jwt, await importJWK(key.publicJwk, "ES256"))).resolves.toBeDefined();
    });

    it("a wrong PIN is refused as unreachable, without the PIN in the reason", async () => {
      // The module's login is one per process: the provider above logs out when it closes.
      await provider.close();
      const wrong = new Provider({ ...hsm.settings, pin: "not-the-pin-1234" });
      try {
        const status = await wrong.status();
        expect(status.reachable).toBe(false);
        expect(status.reason).toMatch(/login to the token 'provider-test' failed: CKR_PIN_INCORRECT/);
        expect(status.reason).not.toContain("not-the-pin-1234");
      } finally {
        await wrong.close();
      }
    });
  },
);
