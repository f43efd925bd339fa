import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The only place that reads process.env (STYLE.md). */
const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(here, "../../..");

function int(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer.`);
  return value;
}

function list(name: string): string[] {
  return (process.env[name] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

export interface Env {
  host: string;
  port: number;
  publicBaseUrl: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  masterKey: string | undefined;
  developmentMode: boolean;
  logLevel: string;
  rateLimitPoints: number;
  rateLimitWindowSeconds: number;
  webhookAllowedHosts: string[];
  bootstrapAdminEmail: string;
  runWorker: boolean;
}

export function readEnv(): Env {
  const production = process.env.NODE_ENV === "production";
  return {
    host: process.env.HOST ?? "127.0.0.1",
    port: int("PORT", 3000),
    publicBaseUrl: process.env.PUBLIC_BASE_URL || undefined,
    databaseUrl: process.env.DATABASE_URL || undefined,
    dataDir: path.resolve(REPO_ROOT, process.env.DATA_DIR || ".data"),
    masterKey: process.env.MASTER_KEY || undefined,
    developmentMode: process.env.DEVELOPMENT_MODE ? process.env.DEVELOPMENT_MODE === "true" : !production,
    logLevel: process.env.LOG_LEVEL ?? "info",
    rateLimitPoints: int("RATE_LIMIT_POINTS", 2000),
    rateLimitWindowSeconds: int("RATE_LIMIT_WINDOW_SECONDS", 1),
    webhookAllowedHosts: list("WEBHOOK_ALLOWED_HOSTS"),
    bootstrapAdminEmail: process.env.BOOTSTRAP_ADMIN_EMAIL ?? "admin@localhost",
    runWorker: process.env.RUN_WORKER !== "false",
  };
}

/** The master key: from MASTER_KEY (base64, 32 bytes), or in development generated once into DATA_DIR. */
export function loadMasterKey(env: Pick<Env, "masterKey" | "dataDir" | "developmentMode">): Buffer {
  if (env.masterKey) {
    const key = Buffer.from(env.masterKey, "base64");
    if (key.length !== 32) throw new Error("MASTER_KEY must be 32 bytes, base64-encoded.");
    return key;
  }
  if (!env.developmentMode) throw new Error("MASTER_KEY is required outside development mode.");
  const file = path.join(env.dataDir, "master.key");
  if (!fs.existsSync(file)) {
    fs.mkdirSync(env.dataDir, { recursive: true });
    fs.writeFileSync(
      file,
      (globalThis.crypto.getRandomValues(Buffer.alloc(32)) as Buffer).toString("base64"),
      {
        mode: 0o600,
      },
    );
  }
  return Buffer.from(fs.readFileSync(file, "utf8").trim(), "base64");
}
