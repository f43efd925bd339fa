import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { operatorSocketPath } from "../src/cli/operator-socket";
import { createServer, type Server } from "../src/server";
import { call } from "./harness";
import { describeOnEmbedded } from "./skip-reasons";

/** `pnpm cli` while the API runs on the embedded database: the API runs the commands (issue #26). */

const CLI = path.resolve(__dirname, "../src/cli/main.ts");
const TSX = path.resolve(__dirname, "../node_modules/.bin/tsx");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-live-"));

/** Each CLI run starts a Node process (several seconds on a loaded machine). */
const SLOW = { timeout: 240_000 };

/** Runs the CLI in a child process: its exit code and output, whatever the code. */
function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      TSX,
      [CLI, ...args],
      { env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", LOG_LEVEL: "silent" } },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
const json = async (...args: string[]) => {
  const result = await cli(...args, "--json");
  expect(result, result.stderr).toMatchObject({ code: 0 });
  return JSON.parse(result.stdout);
};

// The operator socket exists on the embedded database alone; on PostgreSQL the CLI connects directly.
describeOnEmbedded(
  "pnpm cli beside the running API (the operator socket serves the embedded database)",
  () => {
    let server: Server | undefined;
    let baseUrl = "";
    beforeAll(async () => {
      // Left by an API that was killed: the next one replaces it.
      fs.writeFileSync(operatorSocketPath(dataDir), "stale");
      server = await createServer({
        dataDir,
        masterKey: randomBytes(32),
        publicBaseUrl: "http://localhost",
        developmentMode: true,
        logLevel: "silent",
        rateLimit: { points: 1000, durationSeconds: 1 },
        operatorSocket: true,
      });
      await server.app.listen({ host: "127.0.0.1", port: 0 });
      baseUrl = `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}`;
    });
    afterAll(async () => {
      await server?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it("listens on a socket in the data directory that only its own user can open (mode 0600)", () => {
      const socket = operatorSocketPath(dataDir);
      expect(server?.operatorSocket?.path).toBe(socket);
      const stat = fs.statSync(socket);
      expect(stat.isSocket()).toBe(true);
      expect(stat.mode & 0o777).toBe(0o600);
    });

    it("answers a request it cannot read with exit code 2, and stays up", async () => {
      const answer = await new Promise<string>((resolve, reject) => {
        const connection = net.createConnection(operatorSocketPath(dataDir));
        let received = "";
        connection.on("connect", () =>
          connection.write('{"command":{"positionals":["tenants"],"options":{"x":1}}}\n'),
        );
        connection.on("data", (chunk) => {
          received += chunk;
        });
        connection.on("end", () => resolve(received));
        connection.on("error", reject);
      });
      expect(JSON.parse(answer)).toMatchObject({ exitCode: 2, stdout: "" });
      expect((await call({ baseUrl }, "GET", "/healthz")).status).toBe(200);
    });

    it(
      "creates a tenant and a key the API accepts at once, and a revocation the API honours at once",
      SLOW,
      async () => {
        const tenant = await json("tenants", "create", "Live tenant");
        const key = await json(
          "keys",
          "create",
          "--tenant",
          tenant.id,
          "--env",
          "sandbox",
          "--scopes",
          "organisations.read",
        );
        const list = () => call({ baseUrl }, "GET", "/management/organisations", { key: key.key });
        // The key row is now in the API's cache (two seconds): the revocation must drop it.
        expect((await list()).status).toBe(200);
        const revoked = await json("keys", "revoke", key.id);
        expect(revoked).toMatchObject({ id: key.id, status: "revoked" });
        expect((await list()).status).toBe(401);
        // Audited as before: the operating-system user, actor cli.
        const events = await server?.database.prisma.auditEvent.findMany({
          where: { tenantId: tenant.id, actorType: "cli" },
          orderBy: { occurredAt: "asc" },
        });
        expect(events?.map((e) => e.operation)).toEqual([
          "cli:tenants create",
          "cli:keys create",
          "cli:keys revoke",
        ]);
        expect(events?.[0]?.actorName).toBe(os.userInfo().username);
      },
    );

    it("runs every command through the API, in text and --json", SLOW, async () => {
      const tenant = await json("tenants", "create", "Staff tenant");
      expect((await json("tenants", "list")).map((t: { id: string }) => t.id)).toContain(tenant.id);
      expect((await cli("tenants", "list")).stdout).toContain(`${tenant.id}  Staff tenant`);
      expect((await json("keys", "list", "--tenant", tenant.id)).length).toBe(0);
      const user = await json(
        "staff",
        "create",
        "--email",
        "live@example.com",
        "--tenant",
        tenant.id,
        "--role",
        "admin",
      );
      expect(user).toMatchObject({ email: "live@example.com", role: "admin" });
      const other = await json("tenants", "create", "Other tenant");
      expect(
        await json("staff", "grant", "--email", "live@example.com", "--tenant", other.id, "--role", "viewer"),
      ).toMatchObject({ tenantId: other.id, role: "viewer" });
      const reset = await json("staff", "reset-password", "--email", "live@example.com");
      expect(reset.password).not.toBe(user.password);
      expect(await json("master-key", "check")).toMatchObject({ dryRun: true, unreadable: [] });
      expect(await json("master-key", "reseal")).toMatchObject({ dryRun: false, unreadable: [] });
      const verified = await json("audit", "verify", "--tenant", tenant.id);
      expect(verified).toEqual([expect.objectContaining({ tenantId: tenant.id, intact: true })]);
    });

    it("fails a wrong command with the same exit code and message as without the API", SLOW, async () => {
      const missing = await cli("keys", "revoke", "key_missing");
      expect(missing).toMatchObject({ code: 2, stdout: "" });
      expect(missing.stderr).toContain("No key key_missing.");
      expect(missing.stderr).toContain("Usage:");
      const unknown = await cli("tenants", "rename");
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("Unknown command: tenants rename");
      const noTenant = await cli(
        "keys",
        "create",
        "--tenant",
        "ten_missing",
        "--env",
        "sandbox",
        "--scopes",
        "all",
      );
      expect(noTenant.code).toBe(2);
      expect(noTenant.stderr).toContain("No tenant ten_missing.");

      // The same commands once the API is stopped: the CLI opens the database itself.
      await server?.close();
      server = undefined;
      expect(fs.existsSync(operatorSocketPath(dataDir))).toBe(false);
      const offline = await cli("keys", "revoke", "key_missing");
      expect(offline).toEqual(missing);
      const tenants = await json("tenants", "list");
      expect(tenants.map((t: { name: string }) => t.name)).toEqual(
        expect.arrayContaining(["Live tenant", "Staff tenant", "Other tenant"]),
      );
    });
  },
);
