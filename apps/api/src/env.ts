import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { CoreConfig } from "@cred/core";
import { retryScheduleFor } from "@cred/core";
import { poolerMode } from "@cred/db";
import { parseTrustProxy } from "./http/client-address";
import type { Pkcs11Settings, Pkcs11TokenLogin } from "./key-custody/pkcs11-token";
import type { ServerOptions } from "./server";
import { EnvError, StartupError } from "./startup-errors";
import { tracingEnv } from "./tracing/tracing-env";

/** The only place that reads process.env (STYLE.md). */
const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(here, "../../..");

type Source = Record<string, string | undefined>;

function reader(source: Source) {
  const problems: string[] = [];
  const raw = (name: string) => {
    const value = source[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  return {
    problems,
    int(name: string, fallback: number): number {
      const text = raw(name);
      if (text === undefined) return fallback;
      const value = Number(text);
      if (Number.isInteger(value) && value >= 0) return value;
      problems.push(`${name} must be a non-negative integer (got "${text}").`);
      return fallback;
    },
    /** A whole number from `min` to `max`, digits only; undefined when unset (the built-in default applies). */
    positive(name: string, max: number, min = 1): number | undefined {
      const text = raw(name);
      if (text === undefined) return undefined;
      const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
      if (value >= min && value <= max) return value;
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${text}").`);
      return undefined;
    },
    /**
     * An http(s) origin for public URLs: the well-known documents are served at the root
     * (`/.well-known/openid-credential-issuer/issuers/<id>`, OpenID4VCI §12.2.2), so a base URL with a
     * path would name identifiers whose metadata nobody serves. (http outside development mode is an
     * issuer readiness item, not a start failure.)
     */
    origin(name: string): string | undefined {
      const text = raw(name);
      if (text === undefined) return undefined;
      let url: URL | undefined;
      try {
        url = new URL(text);
      } catch {}
      const ok =
        url &&
        (url.protocol === "https:" || url.protocol === "http:") &&
        !url.username &&
        !url.password &&
        url.pathname === "/" &&
        !/[?#]/.test(text);
      if (ok) return url!.origin;
      problems.push(
        `${name} must be an http(s) origin without path, query or credentials, e.g. https://credentials.example.com (got "${text}").`,
      );
      return undefined;
    },
    list(name: string): string[] {
      return (source[name] ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
    },
  };
}

/** Webhook worker settings from the environment; unset ones keep the built-in defaults. */
export interface WebhookWorkerEnv {
  /** WEBHOOK_POLL_INTERVAL_MS: pause between rounds when there was nothing to do. */
  pollIntervalMs?: number;
  /** WEBHOOK_SWEEP_INTERVAL_MS: how often the sweeper runs. */
  sweepIntervalMs?: number;
  /** WEBHOOK_TIMEOUT_MS: per-attempt timeout. */
  timeoutMs?: number;
  /** WEBHOOK_MAX_ATTEMPTS: attempts before a delivery fails (the retry schedule cut or stretched). */
  maxAttempts?: number;
  /** WEBHOOK_DELIVERY_RETENTION_DAYS: how long finished deliveries are kept. */
  deliveryRetentionDays?: number;
  /** WEBHOOK_CONCURRENCY: attempts in flight at once, per worker. */
  concurrency?: number;
}

/**
 * Upper bounds. The timeout stays well inside the 60-second lease a worker holds on a delivery it
 * attempts (the lease also covers the address check and recording the attempt); longer would let a
 * second worker attempt it meanwhile.
 */
const WEBHOOK_ENV_LIMITS = {
  WEBHOOK_POLL_INTERVAL_MS: 60_000,
  WEBHOOK_SWEEP_INTERVAL_MS: 86_400_000,
  WEBHOOK_TIMEOUT_MS: 30_000,
  WEBHOOK_MAX_ATTEMPTS: 50,
  WEBHOOK_DELIVERY_RETENTION_DAYS: 3650,
  WEBHOOK_CONCURRENCY: 256,
} as const;

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

export interface Env {
  host: string;
  port: number;
  publicBaseUrl: string | undefined;
  databaseUrl: string | undefined;
  /**
   * DIRECT_DATABASE_URL: PostgreSQL itself, when DATABASE_URL goes through a pooler in transaction mode
   * (`?pgbouncer=true`): migrations and the webhook worker's LISTEN need a session of their own.
   */
  directDatabaseUrl: string | undefined;
  dataDir: string;
  masterKey: string | undefined;
  /** PREVIOUS_MASTER_KEYS: master keys replaced by MASTER_KEY that still open values until they are sealed again. */
  previousMasterKeys: string[];
  developmentMode: boolean;
  logLevel: string;
  /** LOG_FORMAT: "json" or "pretty"; unset: pretty on a terminal in development mode (log-format.ts). */
  logFormat: "json" | "pretty" | undefined;
  /** OpenTelemetry tracing was asked for by the OTEL_* variables (tracing/tracing-env.ts). */
  tracing: boolean;
  rateLimitPoints: number;
  rateLimitWindowSeconds: number;
  webhookAllowedHosts: string[];
  webhookWorker: WebhookWorkerEnv;
  /** EMBEDDED_SHARED_BUFFERS_MB: the embedded database's buffer pool (8–1024; unset: 16). */
  embeddedSharedBuffersMb: number | undefined;
  bootstrapAdminEmail: string;
  runWorker: boolean;
  /** TRUST_PROXY: proxies whose X-Forwarded-For names the client (default [loopback]; none: []). */
  trustProxy: string[];
  /** AUDIT_RETENTION_DAYS: how long audit events are kept (unset: 400). */
  auditRetentionDays: number | undefined;
  /** CERTIFICATE_EXPIRY_NOTICE_DAYS: days before a relying-party certificate expires when its `*.expiring` event is sent (unset: 30). */
  certificateExpiryNoticeDays: number | undefined;
  /**
   * SHUTDOWN_DRAIN_SECONDS: on SIGTERM, how long /readyz answers 503 while requests are still served,
   * before the listener closes (unset: 0, close at once). Behind a load balancer: at least the time its
   * health check takes to mark a server down.
   */
  shutdownDrainSeconds: number;
  /**
   * Where `/metrics` is served: METRICS_PORT (a listener of its own on METRICS_HOST, default 127.0.0.1)
   * and/or METRICS_TOKEN (a bearer token; on the API's port when no METRICS_PORT). Neither: not served.
   */
  metrics: { port?: number; host?: string; token?: string };
  /**
   * The PKCS#11 module and token(s) for issuer keys (docs/key-custody.md): PKCS11_MODULE (the vendor
   * library), PKCS11_TOKEN_LABEL, the user PIN from PKCS11_PIN or from the file PKCS11_PIN_FILE names (never
   * logged) — or, for several tokens of the module, PKCS11_TOKEN_LABELS and PKCS11_PIN_<LABEL> /
   * PKCS11_PIN_FILE_<LABEL> per token — PKCS11_SESSIONS (the session pool, 1–64, default 4), PKCS11_TIMEOUT_MS (an operation given
   * up as 503 after it, 100–600 000, default 10 000). Unset: no `pkcs11` custody.
   */
  pkcs11: Pkcs11Settings | undefined;
}

/** A metrics token shorter than this is refused: it would be guessable. */
const METRICS_TOKEN_MIN_LENGTH = 32;

/** `{ [key]: value }` when the value is set, else nothing (exactOptionalPropertyTypes-friendly spreads). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** Reads and checks the environment; throws an EnvError naming every invalid variable. */
export function readEnv(source: Source = process.env): Env {
  const read = reader(source);
  const production = source.NODE_ENV === "production";
  const webhook = (name: keyof typeof WEBHOOK_ENV_LIMITS) => read.positive(name, WEBHOOK_ENV_LIMITS[name]);
  const trustProxy = parseTrustProxy(source.TRUST_PROXY);
  if ("problem" in trustProxy) read.problems.push(trustProxy.problem);
  const env: Env = {
    host: source.HOST ?? "127.0.0.1",
    port: read.int("PORT", 3000),
    publicBaseUrl: read.origin("PUBLIC_BASE_URL"),
    databaseUrl: source.DATABASE_URL || undefined,
    directDatabaseUrl: source.DIRECT_DATABASE_URL || undefined,
    dataDir: path.resolve(REPO_ROOT, source.DATA_DIR || ".data"),
    masterKey: source.MASTER_KEY || undefined,
    previousMasterKeys: read.list("PREVIOUS_MASTER_KEYS"),
    developmentMode: source.DEVELOPMENT_MODE ? source.DEVELOPMENT_MODE === "true" : !production,
    logLevel: source.LOG_LEVEL ?? "info",
    logFormat: undefined,
    tracing: tracingEnv(source).enabled,
    rateLimitPoints: read.int("RATE_LIMIT_POINTS", 2000),
    rateLimitWindowSeconds: read.int("RATE_LIMIT_WINDOW_SECONDS", 1),
    webhookAllowedHosts: read.list("WEBHOOK_ALLOWED_HOSTS"),
    webhookWorker: {
      pollIntervalMs: webhook("WEBHOOK_POLL_INTERVAL_MS"),
      sweepIntervalMs: webhook("WEBHOOK_SWEEP_INTERVAL_MS"),
      timeoutMs: webhook("WEBHOOK_TIMEOUT_MS"),
      maxAttempts: webhook("WEBHOOK_MAX_ATTEMPTS"),
      deliveryRetentionDays: webhook("WEBHOOK_DELIVERY_RETENTION_DAYS"),
      concurrency: webhook("WEBHOOK_CONCURRENCY"),
    },
    // Below 8 MB the embedded database would mostly read through its file layer.
    embeddedSharedBuffersMb: read.positive("EMBEDDED_SHARED_BUFFERS_MB", 1024, 8),
    bootstrapAdminEmail: source.BOOTSTRAP_ADMIN_EMAIL ?? "admin@localhost",
    runWorker: source.RUN_WORKER !== "false",
    trustProxy: "trust" in trustProxy ? trustProxy.trust : [],
    auditRetentionDays: read.positive("AUDIT_RETENTION_DAYS", 36_500),
    certificateExpiryNoticeDays: read.positive("CERTIFICATE_EXPIRY_NOTICE_DAYS", 3650),
    shutdownDrainSeconds: read.positive("SHUTDOWN_DRAIN_SECONDS", 300, 0) ?? 0,
    metrics: {
      ...optional("port", read.positive("METRICS_PORT", 65_535)),
      ...optional("host", source.METRICS_HOST?.trim() || undefined),
      ...optional("token", source.METRICS_TOKEN?.trim() || undefined),
    },
    pkcs11: undefined,
  };
  env.pkcs11 = readPkcs11(source, read);
  const token = env.metrics.token;
  if (token !== undefined && (token.length < METRICS_TOKEN_MIN_LENGTH || !/^[\x21-\x7e]+$/.test(token))) {
    read.problems.push(
      `METRICS_TOKEN must be at least ${METRICS_TOKEN_MIN_LENGTH} printable characters without spaces, e.g. openssl rand -hex 32.`,
    );
  }
  if (env.metrics.port !== undefined && env.metrics.port === env.port) {
    read.problems.push(`METRICS_PORT must differ from PORT (${env.port}).`);
  }
  // Outside development mode the public base URL names the issuers and their credential types, which
  // cannot be changed once credentials are out: no silent localhost default, and https only.
  if (
    !env.developmentMode &&
    !env.publicBaseUrl?.startsWith("https://") &&
    !read.problems.some((p) => p.startsWith("PUBLIC_BASE_URL"))
  ) {
    read.problems.push(
      "PUBLIC_BASE_URL must be set to the service's https origin outside development mode, e.g. https://credentials.example.com.",
    );
  }
  if (env.databaseUrl && !/^postgres(ql)?:\/\/[^/]/.test(env.databaseUrl)) {
    read.problems.push(
      "DATABASE_URL must be a postgres:// (or postgresql://) connection URL, e.g. postgres://user:pw@db:5432/credentials.",
    );
  }
  if (env.directDatabaseUrl && !/^postgres(ql)?:\/\/[^/]/.test(env.directDatabaseUrl)) {
    read.problems.push(
      "DIRECT_DATABASE_URL must be a postgres:// (or postgresql://) connection URL to the database server itself, e.g. postgres://user:pw@db:5432/credentials.",
    );
  } else if (env.databaseUrl && poolerMode(env.databaseUrl).transactionPooler && !env.directDatabaseUrl) {
    // Through the pooler, the migration engine's session advisory lock would stay held on a pooled
    // server connection, and LISTEN would hear nothing.
    read.problems.push(
      "DIRECT_DATABASE_URL must be set when DATABASE_URL goes through a transaction pooler (pgbouncer=true): migrations and the webhook worker's LISTEN need a connection to PostgreSQL itself.",
    );
  }
  if (!LOG_LEVELS.includes(env.logLevel)) {
    read.problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")} (got "${env.logLevel}").`);
  }
  const logFormat = source.LOG_FORMAT?.trim();
  if (logFormat === "json" || logFormat === "pretty") env.logFormat = logFormat;
  else if (logFormat) read.problems.push(`LOG_FORMAT must be json or pretty (got "${logFormat}").`);
  if (read.problems.length) throw new EnvError(read.problems);
  return env;
}

/**
 * The PKCS#11 settings, when PKCS11_MODULE is set: the module file must exist, the token label and one
 * PIN source must be given. Several tokens of the module: PKCS11_TOKEN_LABELS (comma-separated, the first
 * the default), each with its PIN in PKCS11_PIN_<LABEL> or PKCS11_PIN_FILE_<LABEL> (`pinVariableOf`).
 * A PIN's value never appears in a problem.
 */
function readPkcs11(source: Source, read: ReturnType<typeof reader>): Pkcs11Settings | undefined {
  const modulePath = source.PKCS11_MODULE?.trim();
  if (!modulePath) return undefined;
  const problems = read.problems;
  if (!fs.existsSync(modulePath)) problems.push(`PKCS11_MODULE names no file (got "${modulePath}").`);
  const tokens = source.PKCS11_TOKEN_LABELS?.trim()
    ? readTokenLogins(source, problems)
    : readTokenLogin(source, problems);
  const sessions = read.positive("PKCS11_SESSIONS", 64);
  const timeoutMs = read.positive("PKCS11_TIMEOUT_MS", 600_000, 100);
  const [first, ...more] = tokens ?? [];
  if (!first) return undefined;
  return {
    modulePath,
    ...first,
    ...(more.length ? { moreTokens: more } : {}),
    ...(sessions !== undefined ? { sessions } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  };
}

/** One token: PKCS11_TOKEN_LABEL and PKCS11_PIN or PKCS11_PIN_FILE. */
function readTokenLogin(source: Source, problems: string[]): Pkcs11TokenLogin[] | undefined {
  const tokenLabel = source.PKCS11_TOKEN_LABEL?.trim();
  if (!tokenLabel) problems.push("PKCS11_TOKEN_LABEL must name the token when PKCS11_MODULE is set.");
  const pin = readPin(source, "PKCS11_PIN", "PKCS11_PIN_FILE", "the token's user PIN", problems);
  return tokenLabel && pin !== undefined ? [{ tokenLabel, pin }] : undefined;
}

/** Several tokens: PKCS11_TOKEN_LABELS, and a PIN per label in PKCS11_PIN_<LABEL> or PKCS11_PIN_FILE_<LABEL>. */
function readTokenLogins(source: Source, problems: string[]): Pkcs11TokenLogin[] | undefined {
  for (const single of ["PKCS11_TOKEN_LABEL", "PKCS11_PIN", "PKCS11_PIN_FILE"])
    if (source[single] !== undefined)
      problems.push(
        `${single} is for one token: with PKCS11_TOKEN_LABELS, give each token's PIN in PKCS11_PIN_<LABEL> or PKCS11_PIN_FILE_<LABEL> and leave ${single} unset.`,
      );
  const labels = source.PKCS11_TOKEN_LABELS!.split(",").map((label) => label.trim());
  if (labels.some((label) => label === ""))
    problems.push(
      `PKCS11_TOKEN_LABELS must list token labels separated by commas (got "${source.PKCS11_TOKEN_LABELS}").`,
    );
  const logins: Pkcs11TokenLogin[] = [];
  const bySuffix = new Map<string, string>();
  for (const tokenLabel of labels.filter((label) => label !== "")) {
    const suffix = pinVariableSuffixOf(tokenLabel);
    const clash = bySuffix.get(suffix);
    if (clash !== undefined) {
      problems.push(
        clash === tokenLabel
          ? `PKCS11_TOKEN_LABELS names the token '${tokenLabel}' twice.`
          : `The tokens '${clash}' and '${tokenLabel}' would share the PIN variable PKCS11_PIN_${suffix}; relabel one of them.`,
      );
      continue;
    }
    bySuffix.set(suffix, tokenLabel);
    const pin = readPin(
      source,
      `PKCS11_PIN_${suffix}`,
      `PKCS11_PIN_FILE_${suffix}`,
      `the user PIN of the token '${tokenLabel}'`,
      problems,
    );
    if (pin !== undefined) logins.push({ tokenLabel, pin });
  }
  return logins.length === labels.length ? logins : undefined;
}

/**
 * The part of a token's PIN variables after PKCS11_PIN_ / PKCS11_PIN_FILE_: the label upper-cased, every
 * character other than A–Z and 0–9 as `_` (`status-lists` → PKCS11_PIN_STATUS_LISTS).
 */
export function pinVariableSuffixOf(tokenLabel: string): string {
  return tokenLabel.toUpperCase().replace(/[^A-Z0-9]/g, "_");
}

/** A PIN from the variable `pinName` or from the file `fileName` names (one trailing newline dropped). */
function readPin(
  source: Source,
  pinName: string,
  fileName: string,
  whose: string,
  problems: string[],
): string | undefined {
  const pinFile = source[fileName]?.trim();
  const pin = source[pinName];
  if (pin && pinFile) {
    problems.push(`Set ${pinName} or ${fileName}, not both.`);
    return undefined;
  }
  if (pinFile) {
    try {
      return fs.readFileSync(pinFile, "utf8").replace(/\r?\n$/, "");
    } catch {
      problems.push(`${fileName} cannot be read (got "${pinFile}").`);
      return undefined;
    }
  }
  if (!pin) problems.push(`${pinName} or ${fileName} must give ${whose}.`);
  return pin || undefined;
}

/** For an entry point: a StartupError (an EnvError's problems) is printed and the process exits 1; anything else is rethrown. */
export function exitOnStartupError(error: unknown): never {
  if (!(error instanceof StartupError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}

/** For an entry point: runs `read`, exiting on invalid variables (`exitOnStartupError`). */
export function orExit<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    return exitOnStartupError(error);
  }
}

/** `readEnv` for an entry point: on invalid variables, prints them and exits with status 1. */
export function readEnvOrExit(): Env {
  return orExit(() => readEnv());
}

/**
 * The worker options and core configuration the webhook environment variables set, for `createServer`
 * (`workerOptions`, `config`) or `createWebhookWorker` and `defaultCoreConfig`; unset variables are
 * left out, so the built-in defaults apply.
 */
export function webhookSettings(
  env: Pick<Env, "webhookWorker"> & Partial<Pick<Env, "auditRetentionDays" | "certificateExpiryNoticeDays">>,
): {
  workerOptions: NonNullable<ServerOptions["workerOptions"]>;
  config: Partial<CoreConfig>;
} {
  const w = env.webhookWorker;
  return {
    workerOptions: {
      ...(w.pollIntervalMs !== undefined && { pollIntervalMs: w.pollIntervalMs }),
      ...(w.sweepIntervalMs !== undefined && { sweepIntervalMs: w.sweepIntervalMs }),
      ...(w.concurrency !== undefined && { concurrency: w.concurrency }),
      delivery: {
        ...(w.timeoutMs !== undefined && { attemptTimeoutMs: w.timeoutMs }),
        ...(w.maxAttempts !== undefined && { retryScheduleMs: retryScheduleFor(w.maxAttempts) }),
      },
    },
    config: {
      ...(w.deliveryRetentionDays !== undefined && { webhookDeliveryRetentionDays: w.deliveryRetentionDays }),
      ...(env.auditRetentionDays !== undefined && { auditRetentionDays: env.auditRetentionDays }),
      ...(env.certificateExpiryNoticeDays !== undefined && {
        certificateExpiryNoticeDays: env.certificateExpiryNoticeDays,
      }),
    },
  };
}

/**
 * The master key — from MASTER_KEY (base64, 32 bytes), or in development generated once into DATA_DIR —
 * and the keys it replaced (PREVIOUS_MASTER_KEYS, comma-separated), which open what they sealed until
 * `pnpm cli master-key reseal` has sealed it again (docs/operations.md).
 */
export function loadMasterKeys(
  env: Pick<Env, "masterKey" | "previousMasterKeys" | "dataDir" | "developmentMode">,
): { masterKey: Buffer; previousMasterKeys: Buffer[] } {
  const previousMasterKeys = env.previousMasterKeys.map((value, i) => {
    const key = Buffer.from(value, "base64");
    if (key.length !== 32) {
      throw new EnvError([
        `PREVIOUS_MASTER_KEYS entry ${i + 1} must be 32 bytes, base64-encoded (got ${key.length}).`,
      ]);
    }
    return key;
  });
  return { masterKey: loadMasterKey(env), previousMasterKeys };
}

function loadMasterKey(env: Pick<Env, "masterKey" | "dataDir" | "developmentMode">): Buffer {
  if (env.masterKey) {
    const key = Buffer.from(env.masterKey, "base64");
    if (key.length !== 32)
      throw new EnvError([`MASTER_KEY must be 32 bytes, base64-encoded (got ${key.length}).`]);
    return key;
  }
  if (!env.developmentMode) {
    throw new EnvError([
      "MASTER_KEY is required outside development mode (32 random bytes, base64: openssl rand -base64 32).",
    ]);
  }
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
