// `pnpm cli issuer-keys list` shows the verifier identities' request-object keys too (where each is held),
// and does not report a verifier key held in the PKCS#11 token as a key nothing names.
import { afterAll, describe, expect, it } from "vitest";
import { type CliKeysScene, cliKeysScene, cliKeysSkipReason } from "./fixtures/cli-keys";

let scene: CliKeysScene | undefined;
afterAll(() => scene?.remove());

describe.skipIf(cliKeysSkipReason !== null)(
  `pnpm cli issuer-keys list: verifier keys${cliKeysSkipReason ? ` [${cliKeysSkipReason}]` : ""}`,
  () => {
    it("lists a verifier's pending token key and its software key with where each is held; the token key is not reported as unreferenced", async () => {
      scene = cliKeysScene("cli-verifier");
      const { tenantId, keyReference } = await scene.withServer(async ({ manage, tenantId }) => {
        const csr = await manage("POST", "/management/verifier-certificate/signing-request", {
          organisationName: "Webshop Oy",
          organisationIdentifier: "VATFI-12345678",
          country: "FI",
          keyCustody: { provider: "pkcs11" },
        });
        expect(csr.status, JSON.stringify(csr.body)).toBe(201);
        return { tenantId, keyReference: csr.body.data.keyLocation.keyReference as string };
      });

      const all = await scene.listJson();
      expect(all.verifierKeys).toEqual([
        expect.objectContaining({
          tenantId: tenantId,
          environment: "sandbox",
          use: "request_signing",
          provider: "software",
          providerKeyRef: null,
        }),
        expect.objectContaining({
          tenantId: tenantId,
          environment: "sandbox",
          use: "pending_request",
          provider: "pkcs11",
          providerKeyRef: keyReference,
        }),
      ]);
      expect(JSON.stringify(all)).not.toMatch(/privateKeyCipher|"d"/);
      expect(all.unreferencedTokenKeys).toEqual([]);
      const inToken = await scene.listJson("--provider", "pkcs11");
      expect(inToken.verifierKeys.map((k: { use: string }) => k.use)).toEqual(["pending_request"]);
      const text = await scene.list();
      expect(text.stdout).toContain("Verifier keys");
      expect(text.stdout).toContain(keyReference);
    }, 120_000);
  },
);
