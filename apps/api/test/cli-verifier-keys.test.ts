// `pnpm cli issuer-keys list` shows the verifier identities' request-object keys too (where each is held),
// and does not report a verifier key held in the PKCS#11 token as a key nothing names.
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
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-verifier-keys-test-"));
let hsm: SoftHsmToken | undefined;
afterAll(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
  hsm?.remove();
});

describe.skipIf(Boolean(process.env.TEST_POSTGRES_URL) || softHsmMissing !== null)(
  `pnpm cli issuer-keys list: verifier keys${process.env.TEST_POSTGRES_URL ? " [embedded database only: the CLI test opens the data directory]" : softHsmMissing ? ` [${softHsmMissing}]` : ""}`,
  () => {
    it("lists a verifier's pending token key and its software key with where each is held; the token key is not reported as unreferenced", async () => {
      const token = freshSoftHsmToken("cli-verifier");
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
      let tenantId: string;
      let keyReference: string;
      try {
        const { bootstrap } = await import("@cred/core");
        const boot = (await bootstrap(server.database.root))!;
        tenantId = boot.tenantId;
        const csr = await call(t, "POST", "/management/verifier-certificate/signing-request", {
          key: boot.apiKey,
          body: {
            organisationName: "Webshop Oy",
            organisationIdentifier: "VATFI-12345678",
            country: "FI",
            keyCustody: { provider: "pkcs11" },
          },
        });
        expect(csr.status, JSON.stringify(csr.body)).toBe(201);
        keyReference = csr.body.data.keyLocation.keyReference;
      } finally {
        await server.close();
      }

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
      expect(all.verifierKeys).toEqual([
        expect.objectContaining({
          tenantId: tenantId!,
          environment: "sandbox",
          use: "request_signing",
          provider: "software",
          providerKeyRef: null,
        }),
        expect.objectContaining({
          tenantId: tenantId!,
          environment: "sandbox",
          use: "pending_request",
          provider: "pkcs11",
          providerKeyRef: keyReference!,
        }),
      ]);
      expect(JSON.stringify(all)).not.toMatch(/privateKeyCipher|"d"/);
      expect(all.unreferencedTokenKeys).toEqual([]);
      const inToken = await list("--provider", "pkcs11");
      expect(inToken.verifierKeys.map((k: { use: string }) => k.use)).toEqual(["pending_request"]);
      const text = await run(TSX, [CLI, "issuer-keys", "list"], { env });
      expect(text.stdout).toContain("Verifier keys");
      expect(text.stdout).toContain(keyReference!);
    }, 120_000);
  },
);
