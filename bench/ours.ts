import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createCredClient, type Schema } from "@cred/sdk";
import pg from "pg";
import { freshPostgresDatabase } from "./postgres";
import { freePort, type Service, startService } from "./processes";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const API_VERSION = "2026-08-30";

/** What the load driver needs to drive our service. */
export interface OursTarget {
  baseUrl: string;
  apiKey: string;
  issuerId: string;
  organisationReference: string;
  configuration: string;
  credentialIssuer: string;
  tokenEndpoint: string;
  nonceEndpoint: string;
  credentialEndpoint: string;
  /** Verification policy accepting this issuer's credentials (requires given_name). */
  verificationPolicy: string;
}

export const CLAIM_DEFINITIONS: Schema<"ClaimDefinition">[] = [
  { path: ["given_name"], type: "string", required: true },
  { path: ["family_name"], type: "string", required: true },
  { path: ["birthdate"], type: "date" },
  { path: ["employee_number"], type: "integer", selectivelyDisclosable: false },
  { path: ["address"], type: "object" },
  { path: ["address", "country"], type: "string", constraints: { pattern: "^[A-Z]{2}$" } },
];

export const CLAIMS = {
  given_name: "Erika",
  family_name: "Mustermann",
  birthdate: "1984-01-26",
  employee_number: 4711,
  address: { country: "DE" },
};

export const API_DIR = path.join(ROOT, "apps/api");

/**
 * The server exactly as `pnpm start` runs it: apps/api's start script is `node scripts/build.mjs &&
 * [NAME=value…] node <V8 flags> dist/main.mjs` (glibc's malloc arenas, a heap limit, WebAssembly kept at
 * the baseline tier; docs/adr/0008-server-process-memory.md). The bundle is built here; the environment assignments
 * (`NAME=value` or `NAME=${NAME:-value}`) and the node arguments are taken from that script.
 */
export function startCommand(): { args: string[]; env: Record<string, string> } {
  const pkg = JSON.parse(fs.readFileSync(path.join(API_DIR, "package.json"), "utf8")) as {
    scripts: { start: string };
  };
  const [build, run] = pkg.scripts.start.split("&&").map((part) => part.trim().split(/\s+/));
  const env: Record<string, string> = {};
  const assignment = /^(\w+)=(?:\$\{\1:-(.*)\}|(.*))$/;
  while (run?.length) {
    const m = assignment.exec(run[0]!);
    if (!m) break;
    env[m[1]!] = m[3] ?? (process.env[m[1]!] || m[2]!);
    run.shift();
  }
  if (build?.[0] !== "node" || run?.[0] !== "node")
    throw new Error(`unexpected start script: ${pkg.scripts.start}`);
  execFileSync(process.execPath, build.slice(1), { cwd: API_DIR, stdio: "inherit" });
  return { args: run.slice(1), env };
}

/**
 * Starts apps/api (dist/main.mjs, built from src/main.ts) as a child process on a fresh temporary DATA_DIR (and, for postgres, a
 * fresh database), reads the bootstrap API key from DATA_DIR/bootstrap.json.
 */
export async function startOurs(options: {
  db: "embedded" | "postgres";
  cpuProfDir?: string;
  nodeArgs?: string[];
  logFile?: string;
  /** Where the embedded database thread keeps its per-statement totals (`--db-statements`). */
  statementStatsFile?: string;
  /** More environment for the server (e.g. `--observability`'s METRICS_TOKEN and OTEL_* variables). */
  env?: Record<string, string>;
  /** Runs the server under this command (processes.ts `startService`), e.g. valgrind. */
  wrapper?: string[];
  /** How long the server may take to answer /healthz (default 60 s). */
  startTimeoutMs?: number;
}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cred-bench-"));
  const database = options.db === "postgres" ? await freshPostgresDatabase() : undefined;
  const port = await freePort();
  const start = startCommand();
  let service: Service;
  const launch = () =>
    startService({
      name: "ours",
      args: [
        ...(options.cpuProfDir ? ["--cpu-prof", "--cpu-prof-dir", options.cpuProfDir] : []),
        ...(options.nodeArgs ?? []),
        ...start.args,
      ],
      cwd: API_DIR,
      port,
      readyPath: "/healthz",
      logFile: options.logFile,
      wrapper: options.wrapper,
      timeoutMs: options.startTimeoutMs,
      env: {
        ...start.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        DATA_DIR: dataDir,
        DATABASE_URL: database?.url ?? "",
        LOG_LEVEL: "warn",
        RATE_LIMIT_POINTS: "10000000",
        // The webhooks workload's receiver listens on loopback, which subscriptions otherwise refuse.
        WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
        NODE_ENV: "development",
        ...(options.statementStatsFile ? { EMBEDDED_STATEMENT_STATS: options.statementStatsFile } : {}),
        ...options.env,
      },
    });
  try {
    service = await launch();
  } catch (error) {
    await database?.drop();
    throw error;
  }
  const boot = JSON.parse(fs.readFileSync(path.join(dataDir, "bootstrap.json"), "utf8")) as {
    apiKey: string;
  };
  return {
    /** The running server (a new process after `runSql` on the embedded database). */
    get service() {
      return service;
    },
    apiKey: boot.apiKey,
    /**
     * Runs statements on the server's database, outside the API (seeding). PostgreSQL: over a connection
     * of its own. Embedded: PGlite is single-user, so the server is stopped, the statements run on its
     * data directory, and the server is started again on the same port and data.
     */
    async runSql(statements: string[]) {
      if (database) {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          for (const statement of statements) await client.query(statement);
        } finally {
          await client.end();
        }
        return;
      }
      await service.stop();
      const { PGlite } = await import("@electric-sql/pglite");
      const db = new PGlite(path.join(dataDir, "pgdata"));
      try {
        for (const statement of statements) await db.exec(statement);
      } finally {
        await db.close();
      }
      service = await launch();
    },
    async stop() {
      await service.stop();
      await database?.drop().catch(() => {});
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The SDK (@cred/sdk) on `key`, for the untimed setup around the workloads. The timed requests go through
 * the driver's own keep-alive pool (http.ts) instead, so the measurement holds no client layer of ours.
 */
export function ourClient(baseUrl: string, key: string) {
  return createCredClient({ baseUrl, apiKey: key });
}

/** Organisation → issuer → credential configuration → activation, through the management API. */
export async function setupOurs(
  baseUrl: string,
  apiKey: string,
  /** More of the Issuers_Create body (e.g. `keyCustody` for `pnpm bench --keys pkcs11`). */
  issuerExtra: Record<string, unknown> = {},
): Promise<OursTarget> {
  const cred = ourClient(baseUrl, apiKey);
  const stamp = Date.now().toString(36);
  const org = await cred.post("/management/organisations", {
    body: { reference: `bench-${stamp}`, displayName: "Bench org" },
  });
  const issuer = await cred.post("/management/issuers", {
    body: {
      organisationReference: org.data.reference,
      displayName: "Bench issuer",
      display: [{ locale: "en", name: "Bench issuer" }],
      ...issuerExtra,
    },
  });
  const config = await cred.post("/management/credential-configurations", {
    body: {
      identifier: `employee-${stamp}`,
      displayName: "Employee badge",
      issuerId: issuer.data.id,
      schemaId: "employee-v1",
      claims: CLAIM_DEFINITIONS,
    },
  });
  await cred.post("/management/issuers/{issuerId}/activate", {
    params: { path: { issuerId: issuer.data.id } },
  });
  const verificationPolicy = `employee-check-${stamp}`;
  await cred
    .post("/management/verification-policies", {
      body: {
        identifier: verificationPolicy,
        displayName: "Employee check",
        purpose: "Bench",
        credentials: [
          {
            id: "employee",
            credentialTypes: [config.data.credentialType],
            trustedIssuers: [{ issuerId: issuer.data.id }],
            requiredClaims: [["given_name"]],
            optionalClaims: [["family_name"]],
          },
        ],
      },
    })
    .catch((error: { status?: number }) => {
      // Builds without verification policies still run the issuance workloads.
      if (error.status !== 404) throw error;
    });
  const credentialIssuer = issuer.data.credentialIssuer as string;
  const wellKnown = (kind: string) => {
    const u = new URL(credentialIssuer);
    return `${u.origin}/.well-known/${kind}${u.pathname}`;
  };
  const metadata = (await (await fetch(wellKnown("openid-credential-issuer"))).json()) as any;
  const as = (await (await fetch(wellKnown("oauth-authorization-server"))).json()) as any;
  return {
    baseUrl,
    apiKey,
    issuerId: issuer.data.id,
    organisationReference: org.data.reference,
    configuration: config.data.identifier,
    credentialIssuer,
    tokenEndpoint: as.token_endpoint,
    nonceEndpoint: metadata.nonce_endpoint,
    credentialEndpoint: metadata.credential_endpoint,
    verificationPolicy,
  };
}

/** Credential ids of completed issuance transactions (untimed preparation for the revocation workload). */
export async function credentialIds(target: OursTarget, transactionIds: string[]): Promise<string[]> {
  const cred = ourClient(target.baseUrl, target.apiKey);
  const ids: string[] = [];
  const queue = [...transactionIds];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let id = queue.pop(); id; id = queue.pop()) {
        const tx = await cred.get("/v1.0/issuance-transactions/{transactionId}", {
          params: { path: { transactionId: id } },
        });
        if (tx.data.credentialId) ids.push(tx.data.credentialId);
      }
    }),
  );
  return ids;
}
