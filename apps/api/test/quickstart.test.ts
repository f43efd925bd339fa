import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { presentWithTestWallet } from "@cred/oid4vc";
import { createCredClient } from "@cred/sdk";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { REPO_ROOT } from "../src/env";
import { startTestServer, type TestServer } from "./harness";
import { redeemOffer } from "./wallet-client";

/**
 * docs/quickstart.md, run: its ```sh quickstart blocks (curl, jq) and its ```ts quickstart blocks (the SDK)
 * against the real server, each on a fresh tenant, with the test wallet taking the holder's part where the
 * page has a `<!-- quickstart: holder … -->` marker. A step that no longer works fails here.
 */

const run = promisify(execFile);
const doc = fs.readFileSync(path.join(REPO_ROOT, "docs/quickstart.md"), "utf8");

/** The page cut at the holder markers: each part's quickstart blocks by language. */
function segments() {
  const parts = doc.split(/<!-- quickstart: holder [^>]*-->/);
  return parts.map((part) => {
    const blocks = { sh: [] as string[], ts: [] as string[] };
    for (const match of part.matchAll(/^```(sh|ts) quickstart\n([\s\S]*?)^```$/gm)) {
      blocks[match[1] as "sh" | "ts"].push(match[2]!);
    }
    return blocks;
  });
}

/** One module of the page's TypeScript, with the holder's steps where the page has them. */
function sdkModule() {
  const parts = segments();
  return parts
    .map((part, index) =>
      [
        ...part.ts,
        index < parts.length - 1 ? `await (globalThis as any).__quickstartHolder(${index});` : "",
      ].join("\n"),
    )
    .join("\n");
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

/** The holder's part, done with the test wallet on what the tenant of `apiKey` made last. */
function holder(apiKey: string) {
  const cred = createCredClient({ baseUrl: t.baseUrl, apiKey });
  let issued: Awaited<ReturnType<typeof redeemOffer>> | undefined;
  const newest = async <T>(items: AsyncGenerator<T>) => (await items.next()).value as T;
  return [
    async function redeemsTheOffer() {
      const { id } = await newest(
        cred.list("/v1.0/issuance-transactions", { params: { query: { limit: 1 } } }),
      );
      const { data } = await cred.get("/v1.0/issuance-transactions/{transactionId}", {
        params: { path: { transactionId: id } },
      });
      issued = await redeemOffer(data.credentialOffer!);
      expect(issued.credentialRes.status, JSON.stringify(issued.credentialRes.body)).toBe(200);
    },
    async function presentsTheCredential() {
      const { id } = await newest(
        cred.list("/v1.0/verification-sessions", { params: { query: { limit: 1 } } }),
      );
      const { data } = await cred.get("/v1.0/verifications/{verificationId}", {
        params: { path: { verificationId: id } },
      });
      await presentWithTestWallet({
        authorizationRequestUri: data.authorizationRequestUri!,
        fetch: (input, init) => fetch(input, init),
        holderPrivateKey: issued!.keys[0]!.privateJwk,
        credential: issued!.credentialRes.body.credentials[0].credential,
      });
    },
  ];
}

/** What the page promises at the end: the credential was issued, and verified with its claims. */
async function expectIssuedAndVerified(apiKey: string) {
  const cred = createCredClient({ baseUrl: t.baseUrl, apiKey });
  const transactions = [];
  for await (const tx of cred.list("/v1.0/issuance-transactions")) transactions.push(tx);
  expect(transactions.map((tx) => tx.status)).toEqual(["completed"]);
  const sessions = [];
  for await (const session of cred.list("/v1.0/verification-sessions")) sessions.push(session);
  expect(sessions.map((session) => session.status)).toEqual(["verified"]);
  const { data } = await cred.get("/v1.0/verifications/{verificationId}", {
    params: { path: { verificationId: sessions[0]!.id } },
  });
  expect(data.result?.credentials[0]?.claims).toEqual({ given_name: "Erika", family_name: "Mustermann" });
}

describe("docs/quickstart.md", () => {
  it("has quickstart blocks in both languages in every part, and one holder step between parts", () => {
    const parts = segments();
    expect(parts).toHaveLength(3);
    for (const part of parts) {
      expect(part.sh.length).toBeGreaterThan(0);
      expect(part.ts.length).toBeGreaterThan(0);
    }
  });

  it("the SDK steps typecheck against the SDK's generated types", async () => {
    // Beside apps/api's node_modules, so `@cred/sdk` and `@types/node` resolve as in a project using them.
    const dir = fs.mkdtempSync(path.join(REPO_ROOT, "apps/api/node_modules/.quickstart-check-"));
    try {
      fs.writeFileSync(path.join(dir, "quickstart.ts"), `${sdkModule()}\nexport {};\n`);
      const tsc = path.join(REPO_ROOT, "node_modules/typescript/bin/tsc");
      const options = ["--noEmit", "--strict", "--noUncheckedIndexedAccess", "--skipLibCheck"];
      const target = ["--target", "ES2022", "--module", "ESNext", "--moduleResolution", "Bundler"];
      await run(process.execPath, [tsc, ...options, ...target, "--types", "node", "quickstart.ts"], {
        cwd: dir,
      }).catch((error: { stdout?: string }) => {
        throw new Error(`docs/quickstart.md's TypeScript does not typecheck:\n${error.stdout}`);
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("the curl steps issue and verify a credential", async () => {
    const tenant = await t.otherTenant();
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "quickstart-sh-"));
    const state = path.join(scratch, "state.sh");
    // The shell variables the page sets, carried from one part to the next.
    const names = [...new Set([...doc.matchAll(/^([A-Z_][A-Z0-9_]*)=/gm)].map((m) => m[1]!))];
    const steps = holder(tenant.key);
    const outputs: string[] = [];
    try {
      for (const [index, part] of segments().entries()) {
        const script = [
          "set -euo pipefail",
          `[ -f "$QUICKSTART_STATE" ] && source "$QUICKSTART_STATE"`,
          ...part.sh,
          `declare -p ${names.join(" ")} > "$QUICKSTART_STATE" 2>/dev/null || true`,
        ].join("\n");
        const { stdout } = await run("bash", ["-c", script], {
          env: { ...process.env, CRED_URL: t.baseUrl, CRED_API_KEY: tenant.key, QUICKSTART_STATE: state },
        }).catch((error: { stdout?: string; stderr?: string }) => {
          throw new Error(`part ${index + 1} failed:\n${error.stdout}\n${error.stderr}`);
        });
        outputs.push(stdout);
        await steps[index]?.();
      }
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
    expect(outputs[0]).toMatch(/^"acme"\n/);
    expect(outputs[0]).toMatch(/^"active"$/m);
    expect(outputs[0]).toMatch(/^openid-credential-offer:\/\/\?credential_offer_uri=/m);
    expect(outputs[1]).toContain('"status": "completed"');
    expect(outputs[1]).toMatch(/^"active"$/m);
    expect(outputs[1]).toMatch(/^openid4vp:\/\//m);
    expect(outputs[2]).toContain('"status": "verified"');
    expect(outputs[2]).toContain('"given_name": "Erika"');
    await expectIssuedAndVerified(tenant.key);
  });

  it("the SDK steps issue and verify a credential", async () => {
    const tenant = await t.otherTenant();
    const steps = holder(tenant.key);
    // One module of the page's TypeScript, with the holder's steps where the page has them.
    const source = segments()
      .map((part, index) =>
        [
          ...part.ts,
          index < steps.length ? `await (globalThis as any).__quickstartHolder(${index});` : "",
        ].join("\n"),
      )
      .join("\n")
      .replace(
        `from "@cred/sdk"`,
        `from ${JSON.stringify(path.join(REPO_ROOT, "packages/sdk/src/index.ts"))}`,
      );
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "quickstart-ts-"));
    const file = path.join(scratch, "quickstart.ts");
    fs.writeFileSync(file, source);
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const global = globalThis as any;
    global.__quickstartHolder = (index: number) => steps[index]!();
    vi.stubEnv("CRED_URL", t.baseUrl);
    vi.stubEnv("CRED_API_KEY", tenant.key);
    let printed: string[] = [];
    try {
      await import(/* @vite-ignore */ file);
    } finally {
      printed = log.mock.calls.map((args) => args.map(String).join(" "));
      vi.unstubAllEnvs();
      delete global.__quickstartHolder;
      log.mockRestore();
      fs.rmSync(scratch, { recursive: true, force: true });
    }
    expect(printed[0]).toMatch(/^openid-credential-offer:\/\/\?credential_offer_uri=/);
    expect(printed[1]).toMatch(/^completed cred_/);
    expect(printed[2]).toMatch(/^openid4vp:\/\//);
    expect(printed[3]).toMatch(/^verified/);
    await expectIssuedAndVerified(tenant.key);
  });
});
