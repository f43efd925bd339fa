import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { bootstrap, createApiKey, createTenant, type Environment, SCOPES, type Scope } from "@cred/core";
import pg from "pg";
import { createServer, type Server, type ServerOptions } from "../src/server";

export const API_VERSION = "2026-08-30";

/**
 * A real server on a real database for HTTP tests: in-memory PGlite by default, or a fresh database on
 * the PostgreSQL server named by TEST_POSTGRES_URL (CI runs the suite both ways).
 */
export interface TestServer {
  baseUrl: string;
  server: Server;
  tenantId: string;
  /** Sandbox key with every scope, from the bootstrap. */
  adminKey: string;
  /** Creates a key (any tenant/environment/scopes). */
  key(options?: {
    scopes?: Scope[];
    environment?: Environment;
    tenantId?: string;
    issuerId?: string;
    expiresAt?: Date;
  }): Promise<string>;
  /** A second tenant with an all-scope sandbox key. */
  otherTenant(): Promise<{ tenantId: string; key: string }>;
  close(): Promise<void>;
}

export async function freshPostgresDatabase(adminUrl: string) {
  const name = `test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export async function startTestServer(overrides: Partial<ServerOptions> = {}): Promise<TestServer> {
  const adminUrl = process.env.TEST_POSTGRES_URL;
  const pgdb = adminUrl ? await freshPostgresDatabase(adminUrl) : undefined;
  const server = await createServer({
    databaseUrl: pgdb?.url,
    dataDir: ":memory:",
    masterKey: randomBytes(32),
    publicBaseUrl: "http://localhost",
    developmentMode: true,
    logLevel: process.env.TEST_LOG_LEVEL ?? "silent",
    rateLimit: { points: 100_000, durationSeconds: 1 },
    webhookAllowedHosts: ["127.0.0.1", "localhost"],
    ...overrides,
  });
  await server.app.listen({ host: "127.0.0.1", port: 0 });
  const port = (server.app.server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  // The public base URL must point at this server for wallet-facing URLs.
  if (!overrides.publicBaseUrl) server.deps.config.publicBaseUrl = baseUrl;
  const root = server.database.root;
  const boot = await bootstrap(root);
  if (!boot) throw new Error("bootstrap expected on a fresh database");

  return {
    baseUrl,
    server,
    tenantId: boot.tenantId,
    adminKey: boot.apiKey,
    async key(options = {}) {
      const created = await createApiKey(
        root,
        { tenantId: options.tenantId ?? boot.tenantId, environment: options.environment ?? "sandbox" },
        {
          name: "test",
          scopes: options.scopes ?? [...SCOPES],
          issuerId: options.issuerId,
          expiresAt: options.expiresAt,
        },
      );
      return created.key;
    },
    async otherTenant() {
      const tenant = await createTenant(root, "Other tenant");
      const created = await createApiKey(
        root,
        { tenantId: tenant.id, environment: "sandbox" },
        { name: "other", scopes: [...SCOPES] },
      );
      return { tenantId: tenant.id, key: created.key };
    },
    async close() {
      await server.close();
      await pgdb?.drop();
    },
  };
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** Set false to leave out api-version on a management path. */
  apiVersion?: string | false;
}

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** One HTTP call; adds `api-version` to management paths unless told not to. */
export async function call<T = any>(
  t: Pick<TestServer, "baseUrl">,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<CallResult<T>> {
  const url = new URL(path, t.baseUrl);
  if (
    path.startsWith("/management/") &&
    options.apiVersion !== false &&
    !url.searchParams.has("api-version")
  ) {
    url.searchParams.set("api-version", options.apiVersion ?? API_VERSION);
  }
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `ApiKey ${options.key}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  } else if (body !== undefined) {
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // leave as text
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** Asserts the documented ErrorEnvelope and returns its error code. */
export function errorCode(result: CallResult): string {
  const body = result.body as { error?: { code?: string; requestId?: string; message?: string } };
  if (!body?.error?.code || !body.error.message || !body.error.requestId) {
    throw new Error(`not an ErrorEnvelope: ${JSON.stringify(result.body)}`);
  }
  if (body.error.requestId !== result.headers.get("x-ms-request-id")) {
    throw new Error("error.requestId differs from x-ms-request-id");
  }
  return body.error.code;
}
