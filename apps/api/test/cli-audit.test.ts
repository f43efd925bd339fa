import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createApiKey, SecretBox } from "@cred/core";
import { afterAll, expect, it } from "vitest";
import { createServer } from "../src/server";
import { call } from "./harness";
import { describeOnEmbedded } from "./skip-reasons";

/** The audit events of operator CLI commands that change credentials or secrets (docs/api/audit-events.md). */

const run = promisify(execFile);
const CLI = path.resolve(__dirname, "../src/cli/main.ts");
const TSX = path.resolve(__dirname, "../node_modules/.bin/tsx");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-audit-test-"));
const masterKey = randomBytes(32);
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

async function cli(...args: string[]) {
  const { stdout } = await run(TSX, [CLI, ...args, "--json"], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      MASTER_KEY: masterKey.toString("base64"),
      LOG_LEVEL: "silent",
    },
  });
  return JSON.parse(stdout);
}

interface AuditEvent {
  operation: string;
  actor: { type: string; id: string | null; name: string | null };
  target: { type: string | null; id: string | null };
  outcome: string;
  summary: { fields: string[]; values: Record<string, unknown> };
  integrity: { state: string };
}

/**
 * Starts the API on the CLI's data directory (PGlite has one owner at a time) and reads each tenant's
 * production audit events (where tenant-wide commands are listed) with a key of its own.
 */
async function productionEventsOf(tenantIds: string[]): Promise<Map<string, AuditEvent[]>> {
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
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    const events = new Map<string, AuditEvent[]>();
    for (const tenantId of tenantIds) {
      const { key } = await createApiKey(
        server.database.root,
        { tenantId, environment: "production" },
        { name: "auditor", scopes: ["audit.read"] },
      );
      const res = await call({ baseUrl }, "GET", "/management/audit-events?limit=100", { key });
      expect(res.status).toBe(200);
      events.set(tenantId, res.body.data);
    }
    return events;
  } finally {
    await server.close();
  }
}

describeOnEmbedded("audit events of the operator CLI", () => {
  it("staff reset-password is recorded in each tenant the user works in, without the password", async () => {
    const home = await cli("tenants", "create", "Home tenant");
    const other = await cli("tenants", "create", "Other tenant");
    const bystander = await cli("tenants", "create", "Bystander tenant");
    const email = `reset-${Date.now()}@example.test`;
    await cli("staff", "create", "--email", email, "--tenant", home.id, "--role", "operator");
    await cli("staff", "grant", "--email", email, "--tenant", other.id, "--role", "viewer");
    const reset = await cli("staff", "reset-password", "--email", email);
    expect(reset).toEqual({ email, password: expect.stringMatching(/^\S{15,}$/) });

    const events = await productionEventsOf([home.id, other.id, bystander.id]);
    for (const tenantId of [home.id, other.id]) {
      const resets = events.get(tenantId)!.filter((e) => e.operation === "cli:staff reset-password");
      expect(resets).toHaveLength(1);
      expect(resets[0]).toMatchObject({
        actor: { type: "cli", id: null, name: os.userInfo().username },
        target: { type: "staffUser", id: email },
        outcome: "succeeded",
        summary: { fields: ["email"], values: { email } },
      });
      expect(JSON.stringify(resets[0])).not.toContain(reset.password);
    }
    expect(events.get(bystander.id)!.some((e) => e.operation === "cli:staff reset-password")).toBe(false);
    // An unknown user changes nothing, so nothing is recorded: the command fails before the audit.
    await expect(cli("staff", "reset-password", "--email", "nobody@example.test")).rejects.toMatchObject({
      code: 2,
    });
  }, 120_000);

  it("master-key reseal is recorded in every tenant, naming the key by its public tag; check is not", async () => {
    const first = await cli("tenants", "create", "Reseal tenant 1");
    const second = await cli("tenants", "create", "Reseal tenant 2");
    const check = await cli("master-key", "check");
    expect(check.dryRun).toBe(true);
    const before = await productionEventsOf([first.id]);
    expect(before.get(first.id)!.some((e) => e.operation.startsWith("cli:master-key"))).toBe(false);

    const resealed = await cli("master-key", "reseal");
    expect(resealed.dryRun).toBe(false);
    const events = await productionEventsOf([first.id, second.id]);
    const tag = new SecretBox(masterKey).currentKeyTag;
    expect(tag).toMatch(/^[A-Za-z0-9_-]{8}$/);
    for (const tenantId of [first.id, second.id]) {
      const reseals = events.get(tenantId)!.filter((e) => e.operation === "cli:master-key reseal");
      expect(reseals).toHaveLength(1);
      expect(reseals[0]).toMatchObject({
        actor: { type: "cli", name: os.userInfo().username },
        target: { type: "masterKey", id: tag },
        outcome: "succeeded",
        summary: { fields: [], values: {} },
        integrity: { state: "intact" },
      });
      expect(JSON.stringify(reseals[0])).not.toContain(masterKey.toString("base64"));
    }
    expect(events.get(first.id)!.some((e) => e.operation === "cli:master-key check")).toBe(false);
    // The events recorded by the CLI are sealed into each tenant's chain, which still verifies.
    const verified = await cli("audit", "verify");
    expect(verified.every((r: { intact: boolean }) => r.intact)).toBe(true);
  }, 120_000);
});
