// `pnpm cli issuer-keys list`: issuer keys by provider, and keys in the PKCS#11 token no issuer key names.
import { afterAll, describe, expect, it } from "vitest";
import { type CliKeysScene, cliKeysScene, cliKeysSkipReason } from "./fixtures/cli-keys";

let scene: CliKeysScene | undefined;
afterAll(() => scene?.remove());

describe.skipIf(cliKeysSkipReason !== null)(
  `pnpm cli issuer-keys list${cliKeysSkipReason ? ` [${cliKeysSkipReason}]` : ""}`,
  () => {
    it("lists issuer keys with where each is held, by provider, and the token's keys no issuer key names", async () => {
      scene = cliKeysScene("cli-keys");
      const ids = await scene.withServer(async ({ manage }) => {
        const org = await manage("POST", "/management/organisations", {
          reference: "cli-keys-org",
          displayName: "CLI keys",
        });
        const create = (body: Record<string, unknown>) =>
          manage("POST", "/management/issuers", {
            organisationReference: org.body.data.reference,
            displayName: "x",
            ...body,
          });
        return {
          hsm: (await create({ keyCustody: { provider: "pkcs11" } })).body.data.id as string,
          software: (await create({})).body.data.id as string,
        };
      });
      // A key left in the token by a destroy that failed: no issuer key names it.
      const { Pkcs11KeyProvider } = await import("../src/key-custody/pkcs11-key-provider");
      const provider = new Pkcs11KeyProvider(scene.token.settings);
      const orphan = await provider.generate({
        usage: "sign",
        sealedFor: "x",
        label: "orphan credential_signing",
      });
      await provider.close();

      const all = await scene.listJson();
      expect(all.keys).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            issuerId: ids.hsm,
            provider: "pkcs11",
            state: "current",
            providerKeyRef: expect.stringMatching(/^pkcs11:token=cli-keys;id=/),
            holdsPrivateKey: true,
          }),
          expect.objectContaining({ issuerId: ids.software, provider: "software", providerKeyRef: null }),
        ]),
      );
      expect(JSON.stringify(all)).not.toMatch(/privateKeyCipher|"d"/);
      expect(all.unreferencedTokenKeys).toEqual([
        { providerKeyRef: orphan.providerKeyRef, label: "orphan credential_signing" },
      ]);
      const inToken = await scene.listJson("--provider", "pkcs11");
      expect(inToken.keys.map((k: { issuerId: string }) => k.issuerId)).toEqual([ids.hsm]);
      const sealed = await scene.listJson("--provider", "software");
      expect(sealed.keys.map((k: { issuerId: string }) => k.issuerId)).toEqual([ids.software]);
      expect(sealed.unreferencedTokenKeys).toBeUndefined();
      await expect(scene.list("--provider", "kms")).rejects.toMatchObject({
        code: 2,
      });
    }, 120_000);
  },
);
