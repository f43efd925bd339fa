// `pnpm cli issuer-keys list`: issuer keys by provider, and keys in the PKCS#11 token no issuer key names.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { createServer } from "../src/server";
import { freshSoftHsmToken, type SoftHsmToken, softHsmMissing } from "./fixtures/softhsm";
import { call } from "./harness";

const run = promisify(execFile);
const CLI = path.resolve(__dirname, "../src/cli/main.ts");
const TSX = path.resolve(__dirname, "../node_modules/.bin/tsx");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-keys-test-"));
let hsm: SoftHsmToken | undefined;
afterAll(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
  hsm?.remove();
});

describe.skipIf(Boolean(process.env.TEST_POSTGRES_URL) || softHsmMissing !== null)(
  `pnpm cli issuer-keys list${process.env.TEST_POSTGRES_URL ? " [embedded database only: the CLI test opens the data directory]" : softHsmMissing ? ` [${softHsmMissing}]` : ""}`,
  () => {
    it("lists issuer keys with where each is held, by provider, and the token's keys no issuer key names", async () => {
      const token = freshSoftHsmToken("cli-keys");
      hsm = token;
      const server = await createServer({
        dataDir,
        masterKey: randomBytes(32),
        publicBaseUrl: "http://localhost",
        developmentMode: true,
        logLevel: "silent",
        rateLimit: { points: 1000, durationSeconds: 1 },
        pkcs11: token.settings,
      });
      await server.app.listen({ host: "127.0.0.1", port: 0 });
      const { port } = server.app.server.address() as { port: number };
      const t = { baseUrl: `http://127.0.0.1:${port}` };
      let ids: { hsm: string; software: string };
      try {
        const { bootstrap } = await import("@cred/core");
        const boot = (await bootstrap(server.database.root))!;
        const org = await call(t, "POST", "/management/organisations", {
          key: boot.apiKey,
          body: { reference: "cli-keys-org", displayName: "CLI keys" },
        });
        const create = (body: Record<string, unknown>) =>
          call(t, "POST", "/management/issuers", {
            key: boot.apiKey,
            body: { organisationReference: org.body.data.reference, displayName: "x", ...body },
          });
        ids = {
          hsm: (await create({ keyCustody: { provider: "pkcs11" } })).body.data.id,
          software: (await create({})).body.data.id,
        };
      } finally {
        await server.close();
      }
      // A key left in the token by a destroy that failed: no issuer key names it.
      const { Pkcs11KeyProvider } = await import("../src/key-custody/pkcs11-key-provider");
      const provider = new Pkcs11KeyProvider(token.settings);
      const orphan = await provider.generate({
        usage: "sign",
        sealedFor: "x",
        label: "orphan credential_signing",
      });
      await provider.close();

      const env = {
        ...process.env,
        DATA_DIR: dataDir,
        DATABASE_URL: "",
        LOG_LEVEL: "silent",
        PKCS11_MODULE: token.settings.modulePath,
        PKCS11_TOKEN_LABEL: token.settings.tokenLabel,
        PKCS11_PIN: token.settings.pin,
      };
      const list = async (...args: string[]) => {
        const done = await run(TSX, [CLI, "issuer-keys", "list", ...args, "--json"], { env }).catch(
          (error: { stderr?: string; message: string }) => {
            throw new Error(`${error.message}\n${error.stderr ?? ""}`);
          },
        );
        return JSON.parse(done.stdout);
      };

      const all = await list();
      expect(all.keys).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            issuerId: ids!.hsm,
            provider: "pkcs11",
            state: "current",
            providerKeyRef: expect.stringMatching(/^pkcs11:token=cli-keys;id=/),
            holdsPrivateKey: true,
          }),
          expect.objectContaining({ issuerId: ids!.software, provider: "software", providerKeyRef: null }),
        ]),
      );
      expect(JSON.stringify(all)).not.toMatch(/privateKeyCipher|"d"/);
      expect(all.unreferencedTokenKeys).toEqual([
        { providerKeyRef: orphan.providerKeyRef, label: "orphan credential_signing" },
      ]);
      const inToken = await list("--provider", "pkcs11");
      expect(inToken.keys.map((k: { issuerId: string }) => k.issuerId)).toEqual([ids!.hsm]);
      const sealed = await list("--provider", "software");
      expect(sealed.keys.map((k: { issuerId: string }) => k.issuerId)).toEqual([ids!.software]);
      expect(sealed.unreferencedTokenKeys).toBeUndefined();
      await expect(
        run(TSX, [CLI, "issuer-keys", "list", "--provider", "kms"], { env }),
      ).rejects.toMatchObject({
        code: 2,
      });
    }, 120_000);
  },
);
