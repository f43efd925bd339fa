import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { createServer } from "../src/server";
import { activeIssuer } from "./fixtures";
import { call } from "./harness";
import { describeOnEmbedded } from "./skip-reasons";

const run = promisify(execFile);
const CLI = path.resolve(__dirname, "../src/cli/main.ts");
const TSX = path.resolve(__dirname, "../node_modules/.bin/tsx");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-test-"));
const masterKey = randomBytes(32);
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

async function cli(...args: string[]) {
  return cliWith({}, ...args);
}

async function cliWith(env: Record<string, string>, ...args: string[]) {
  const { stdout } = await run(TSX, [CLI, ...args, "--json"], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", LOG_LEVEL: "silent", ...env },
  });
  return JSON.parse(stdout);
}

/** Starts the API on the CLI's data directory, runs `fn`, stops it (PGlite has one owner at a time). */
async function withServer(
  fn: (baseUrl: string, server: Awaited<ReturnType<typeof createServer>>) => Promise<void>,
) {
  const server = await createServer({
    dataDir,
    masterKey,
    publicBaseUrl: "http://localhost",
    developmentMode: true,
    logLevel: "silent",
    rateLimit: { points: 1000, durationSeconds: 1 },
  });
  await server.app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = server.app.server.address() as { port: number };
  try {
    await fn(`http://127.0.0.1:${port}`, server);
  } finally {
    await server.close();
  }
}

describeOnEmbedded("pnpm cli", () => {
  it("creates a tenant and a scoped key that works, lists it, and revokes it", async () => {
    const tenant = await cli("tenants", "create", "CLI tenant");
    expect(tenant.id).toMatch(/^ten_/);
    const key = await cli(
      "keys",
      "create",
      "--tenant",
      tenant.id,
      "--env",
      "production",
      "--scopes",
      "organisations.read",
    );
    expect(key.key).toMatch(/^ak_/);
    expect(key).toMatchObject({
      environment: "production",
      scopes: ["organisations.read"],
      status: "active",
    });
    const listed = await cli("keys", "list", "--tenant", tenant.id);
    expect(listed.map((k: { id: string }) => k.id)).toContain(key.id);
    expect(JSON.stringify(listed)).not.toContain(key.key);
    // A key cannot be created expired (its secret would never work).
    const create = (expires: string) =>
      cli(
        "keys",
        "create",
        "--tenant",
        tenant.id,
        "--env",
        "sandbox",
        "--scopes",
        "organisations.read",
        "--expires",
        expires,
      );
    await expect(create("2020-01-01T00:00:00Z")).rejects.toMatchObject({ code: 2 });
    // An expired key lists as expired, with or without --tenant, in the same shape.
    const old = await create("2099-12-31T00:00:00Z");
    await withServer(async (_, server) => {
      // Moved into the past behind the CLI's back: keys cannot be created expired.
      await server.database.prisma.apiKey.update({
        where: { id: old.id },
        data: { expiresAt: new Date(Date.now() - 1000) },
      });
    });
    for (const args of [["--tenant", tenant.id], []]) {
      const all = await cli("keys", "list", ...args);
      expect(all.find((k: { id: string }) => k.id === old.id)).toMatchObject({
        tenantId: tenant.id,
        status: "expired",
      });
    }

    await withServer(async (baseUrl) => {
      expect((await call({ baseUrl }, "GET", "/management/organisations", { key: key.key })).status).toBe(
        200,
      );
      expect(
        (
          await call({ baseUrl }, "POST", "/management/organisations", {
            key: key.key,
            body: { reference: "x", displayName: "X" },
          })
        ).status,
      ).toBe(403);
    });
    const revoked = await cli("keys", "revoke", key.id);
    expect(revoked.status).toBe("revoked");
    // A new server starts with its own caches (deps.caches): no key row cached by the first one.
    await withServer(async (baseUrl) => {
      expect((await call({ baseUrl }, "GET", "/management/organisations", { key: key.key })).status).toBe(
        401,
      );
    });
  }, 120_000);

  it("adds a console user with a generated password, and resets a lost one (signing the user out)", async () => {
    const tenant = await cli("tenants", "create", "Staff tenant");
    const email = `ops-${Date.now()}@example.test`;
    const user = await cli("staff", "create", "--email", email, "--tenant", tenant.id, "--role", "operator");
    expect(user).toMatchObject({ email, tenantId: tenant.id, role: "operator" });
    expect(user.password).toMatch(/^\S{15,}$/);
    await expect(
      cli("staff", "create", "--email", email, "--tenant", tenant.id, "--role", "operator"),
    ).rejects.toMatchObject({ code: 2 });
    const reset = await cli("staff", "reset-password", "--email", email);
    expect(reset.password).not.toBe(user.password);
    await expect(cli("staff", "reset-password", "--email", "nobody@example.test")).rejects.toMatchObject({
      code: 2,
    });
    await withServer(async (baseUrl) => {
      const signIn = (password: string) =>
        fetch(new URL("/trpc/staff.signIn", baseUrl), {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email, password }),
        }).then((r) => r.status);
      expect(await signIn(user.password)).toBe(401);
      expect(await signIn(reset.password)).toBe(200);
    });
  }, 90_000);

  it("refuses to open the embedded database while the API holds it (its writes would be lost)", async () => {
    await withServer(async () => {
      const refused = await cli("tenants", "create", "Lost tenant").catch((error) => error);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/is in use by process \d+/);
    });
    // Once the API is stopped the lock is gone and the CLI works again.
    expect((await cli("tenants", "list")).map((t: { name: string }) => t.name)).not.toContain("Lost tenant");
  }, 60_000);

  it("rotates the master key: check counts, reseal seals again, a key that opens nothing exits 1", async () => {
    const tenant = await cli("tenants", "create", "Rotation tenant");
    const { key } = await cli("keys", "create", "--tenant", tenant.id, "--env", "sandbox", "--scopes", "all");
    await withServer(async (baseUrl) => {
      await activeIssuer({ baseUrl }, key);
    });
    const b64 = (k: Buffer) => k.toString("base64");
    const newKey = randomBytes(32);
    const rotating = { MASTER_KEY: b64(newKey), PREVIOUS_MASTER_KEYS: b64(masterKey) };
    const issuerKeys = (report: { columns: { table: string; column: string; resealed: number }[] }) =>
      report.columns.find((c) => c.table === "IssuerKey" && c.column === "privateKeyCipher");

    const check = await cliWith(rotating, "master-key", "check");
    expect(check.dryRun).toBe(true);
    expect(issuerKeys(check)).toMatchObject({ current: 0, unreadable: 0 });
    expect(issuerKeys(check)?.resealed).toBeGreaterThan(0);
    const resealed = await cliWith(rotating, "master-key", "reseal");
    expect(issuerKeys(resealed)).toEqual(issuerKeys(check));
    const after = await cliWith({ MASTER_KEY: b64(newKey) }, "master-key", "check");
    expect(issuerKeys(after)).toMatchObject({ resealed: 0, unreadable: 0 });

    // A key that sealed none of it: every value is named unreadable, nothing is written, exit 1.
    const wrong = await cliWith({ MASTER_KEY: b64(randomBytes(32)) }, "master-key", "reseal").catch((e) => e);
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout).unreadable[0]).toMatch(/^IssuerKey\.privateKeyCipher ikey_/);
    await expect(
      cliWith({ MASTER_KEY: b64(newKey), PREVIOUS_MASTER_KEYS: "c2hvcnQ=" }, "master-key", "check"),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/PREVIOUS_MASTER_KEYS entry 1/) });

    // And back, so that the other tests' server (on the original key) still starts.
    await cliWith({ MASTER_KEY: b64(masterKey), PREVIOUS_MASTER_KEYS: b64(newKey) }, "master-key", "reseal");
    await withServer(async (baseUrl) => {
      expect((await call({ baseUrl }, "GET", "/management/issuers", { key })).status).toBe(200);
    });
  }, 120_000);

  it("refuses unknown scopes and environments with exit code 2", async () => {
    await expect(
      cli("keys", "create", "--tenant", "ten_x", "--env", "staging", "--scopes", "all"),
    ).rejects.toMatchObject({ code: 2 });
    await expect(
      cli("keys", "create", "--tenant", "ten_x", "--env", "sandbox", "--scopes", "bogus.scope"),
    ).rejects.toMatchObject({ code: 2 });
    await expect(
      cli("staff", "grant", "--email", "nobody@example.com", "--tenant", "ten_x", "--role", "admin"),
    ).rejects.toMatchObject({ code: 2 });
  }, 60_000);
});
