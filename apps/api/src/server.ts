import {
  type AppDeps,
  appRouter,
  Caches,
  type CoreConfig,
  createRateLimiter,
  createSignInThrottle,
  idempotentInputParsers,
  issuerKeyMasterKeyCannotOpen,
  KeyCustody,
  noDomainMetrics,
  SecretBox,
  SIGN_IN_THROTTLE,
  type SignInThrottlePolicy,
  SoftwareKeyProvider,
} from "@cred/core";
import {
  applyMigrations,
  type Database,
  embeddedDatabaseExists,
  hasPendingMigrations,
  migrateInChildProcess,
  openDatabase,
  type StatementObserver,
} from "@cred/db";
import Fastify, { type FastifyInstance, LogController } from "fastify";
import { listenForOperators, type OperatorSocket, operatorSocketPath } from "./cli/operator-socket";
import { mountConsole } from "./console/mount-console";
import { registerErrorHandling } from "./http/errors";
import { registerJsonParser } from "./http/json-body";
import { type LogFormat, prettyLogStream } from "./http/log-format";
import { registerOps } from "./http/ops";
import { answerClientError, answerFrameworkError, registerProtocolGuards } from "./http/protocol-errors";
import { declareRequestFields } from "./http/request-fields";
import { genRequestId, registerRequestIds } from "./http/request-ids";
import { registerStorableTargetCheck } from "./http/storable-text";
import type { Pkcs11Settings } from "./key-custody/pkcs11-token";
import {
  listenForMetrics,
  type MetricsExposure,
  type MetricsListener,
  registerMetricsRoute,
} from "./metrics/metrics-endpoint";
import { registerRequestMetrics } from "./metrics/request-metrics";
import { createServerMetrics, type ServerMetrics } from "./metrics/server-metrics";
import { mountRest } from "./rest/mount-rest";
import { registerOpenApi } from "./rest/openapi-routes";
import { methodsForPath, pathParameterAt } from "./rest/operations";
import { EnvError, StartupError } from "./startup-errors";
import { traceIdsOfLogger } from "./tracing/log-trace-ids";
import { registerRequestSpans } from "./tracing/request-spans";
import { traceWalletSteps } from "./tracing/wallet-steps";
import { registerWalletRoutes } from "./wallet";
import { createWebhookWorker, type WebhookWorker, type WebhookWorkerOptions } from "./worker";
import { announceOutboxWrites } from "./worker/outbox-notify";

export interface ServerOptions {
  databaseUrl?: string;
  /** PostgreSQL itself, when `databaseUrl` goes through a transaction pooler: migrations and LISTEN. */
  directDatabaseUrl?: string;
  dataDir: string;
  /** Embedded database only: its buffer pool in MB (default 16; see packages/db/src/client.ts). */
  embeddedSharedBuffersMb?: number;
  masterKey: Buffer;
  /** Replaced master keys that still open what they sealed (a rotation in progress). */
  previousMasterKeys?: Buffer[];
  publicBaseUrl: string;
  developmentMode: boolean;
  logLevel?: string;
  /** "pretty": human-readable short lines, no probe lines (http/log-format.ts); default JSON. */
  logFormat?: LogFormat;
  /** OpenTelemetry is running (tracing/): wallet step spans, and trace ids on log lines. */
  tracing?: boolean;
  rateLimit: { points: number; durationSeconds: number };
  /** Failed console sign-ins and the waits they cause (tests shorten the waits); see SIGN_IN_THROTTLE. */
  signInThrottle?: Partial<SignInThrottlePolicy>;
  /**
   * Proxies whose X-Forwarded-For names the client (Fastify's trustProxy: addresses, CIDR ranges,
   * loopback/linklocal/uniquelocal); default loopback, where the console's /trpc proxy runs. [] trusts none.
   */
  trustProxy?: string[];
  webhookAllowedHosts?: string[];
  config?: Partial<CoreConfig>;
  /** Run the webhook delivery worker (and sweeper) inside this process; off unless set. */
  runWorker?: boolean;
  /** Where `/metrics` is served: its own port, or behind a token; not at all when unset (metrics-endpoint.ts). */
  metrics?: MetricsExposure;
  /**
   * Embedded database in a data folder only: listen on the operator socket in it (DATA_DIR/operator.sock,
   * mode 0600), where `pnpm cli` has this process run its commands (cli/operator-socket.ts).
   */
  operatorSocket?: boolean;
  /**
   * A PKCS#11 module and its tokens for issuer keys (docs/key-custody.md): issuers whose custody is
   * `pkcs11` generate and use their keys there, in the token their purpose names. Unset: only `software` custody is offered.
   */
  pkcs11?: Pkcs11Settings;
  /** Worker pacing (tests shorten the retry schedule and poll interval). */
  workerOptions?: Partial<Omit<WebhookWorkerOptions, "delivery">> & {
    delivery?: Partial<WebhookWorkerOptions["delivery"]>;
  };
}

export interface Server {
  app: FastifyInstance;
  deps: AppDeps;
  database: Database;
  /** The in-process webhook worker, when `runWorker` is set. */
  worker?: WebhookWorker;
  /** This server's metrics (its own registry), when exposed (METRICS_PORT or METRICS_TOKEN). */
  metrics?: ServerMetrics;
  /** The separate metrics listener, when `metrics.port` is set. */
  metricsListener?: MetricsListener;
  /**
   * The first step of a draining shutdown: /readyz answers 503 `draining` while everything else is
   * served as before, so a load balancer's health check takes the process out before `close()`.
   */
  beginDraining(): void;
  /** The operator socket, when `operatorSocket` is set and the database is embedded in a data folder. */
  operatorSocket?: OperatorSocket;
  close(): Promise<void>;
}

/** Secret-bearing field names, redacted wherever a log line carries them (top level and two levels down). */
const SECRET_FIELDS = [
  "apiKey",
  "key",
  "secret",
  "password",
  "consolePassword",
  "masterKey",
  "previousMasterKeys",
  "privateKeyPem",
  '["pre-authorized_code"]',
  "tx_code",
  "txCode",
  "access_token",
];

export const REDACTED_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  "headers.authorization",
  "headers.cookie",
  ...SECRET_FIELDS.flatMap((name) => {
    const member = name.startsWith("[") ? name : `.${name}`;
    return [name, `*${member}`, `*.*${member}`];
  }),
];

export function defaultCoreConfig(options: ServerOptions): CoreConfig {
  return {
    publicBaseUrl: options.publicBaseUrl.replace(/\/+$/, ""),
    developmentMode: options.developmentMode,
    idempotencyRetentionHours: 24,
    webhookDeliveryRetentionDays: 30,
    auditRetentionDays: 400,
    certificateExpiryNoticeDays: 30,
    webhookAllowedHosts: options.webhookAllowedHosts ?? [],
    issuance: {
      offerLifetimeSeconds: 900,
      accessTokenLifetimeSeconds: 300,
      nonceLifetimeSeconds: 300,
      txCodeMaxAttempts: 5,
      batchSize: 10,
      statusListSize: 131072,
      statusListTtlSeconds: 300,
    },
    ...options.config,
  };
}

/** An error's message; an AggregateError (every address of a host refused) has its own empty. */
function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && !error.message) return error.errors.map(reasonOf).join("; ");
  const e = error as { message?: string; code?: string };
  return e.message || e.code || String(error);
}

/** A PostgreSQL server that refuses or does not answer stops the start with its reason, in one line. */
async function assertReachable(database: Database, databaseUrl: string): Promise<void> {
  try {
    await database.root.sql.query("SELECT 1");
  } catch (error) {
    await database.close();
    const url = new URL(databaseUrl);
    throw new StartupError(
      `Cannot use the database at ${url.host}${url.pathname} (DATABASE_URL): ${reasonOf(error)}`,
    );
  }
}

/**
 * The database, migrated. Pending migrations on a database another process can open (a PostgreSQL server
 * or an embedded data folder) run in a child process, so the migration engine's memory never joins the
 * server's; an in-memory database (tests) can only be migrated here.
 */
async function openMigratedDatabase(
  options: ServerOptions,
  onMaintenanceError: (error: unknown) => void,
  onStatement: StatementObserver | undefined,
): Promise<Database> {
  const open = () =>
    openDatabase({
      databaseUrl: options.databaseUrl,
      directDatabaseUrl: options.directDatabaseUrl,
      dataDir: options.dataDir,
      sharedBuffersMb: options.embeddedSharedBuffersMb,
      onMaintenanceError,
      onStatement,
    });
  if (!options.databaseUrl && options.dataDir === ":memory:") {
    const database = open();
    await applyMigrations(database.adapterFactory);
    return database;
  }
  const inChild = () =>
    // The migration engine holds a session advisory lock: never through a transaction pooler.
    migrateInChildProcess({
      databaseUrl: options.directDatabaseUrl ?? options.databaseUrl,
      dataDir: options.dataDir,
    }).catch((error: Error) => {
      throw new StartupError(error.message);
    });
  // A new embedded database is created (initdb, also a memory peak) and migrated by the child alone.
  if (!options.databaseUrl && !embeddedDatabaseExists(options.dataDir)) {
    await inChild();
    return open();
  }
  const database = open();
  if (options.databaseUrl) await assertReachable(database, options.databaseUrl);
  if (!(await hasPendingMigrations(database.adapterFactory))) return database;
  await database.close();
  await inChild();
  return open();
}

/** How long requests in flight get to finish once shutdown begins. */
const SHUTDOWN_DEADLINE_MS = 20_000;

/** Fastify's trustProxy: false for none, else the list (it compiles addresses and ranges once). */
function trustProxySetting(trust: string[]): false | string[] {
  return trust.length ? trust : false;
}

/** Composition root: database, migrations, dependencies and every route. */
export async function createServer(options: ServerOptions): Promise<Server> {
  let logger: { error(details: object, message: string): void } | undefined;
  const exposure = options.metrics ?? {};
  // Collected only where someone can read them (METRICS_PORT or METRICS_TOKEN): otherwise every request
  // and statement would pay for counters nobody scrapes. One registry per server: tests run several.
  const metrics =
    exposure.port !== undefined || exposure.token !== undefined ? createServerMetrics() : undefined;
  const database = await openMigratedDatabase(
    options,
    (err) =>
      logger?.error(
        { err },
        "embedded database: a periodic CHECKPOINT / VACUUM failed, or its thread stopped",
      ),
    metrics?.observeStatement,
  );
  metrics?.watch(database);
  const secretBox = new SecretBox(options.masterKey, options.previousMasterKeys);
  // A different MASTER_KEY would start "healthy" and fail every issuance later: check it against one
  // sealed issuer key now.
  const unopened = await issuerKeyMasterKeyCannotOpen(database.root, secretBox);
  if (unopened) {
    await database.close();
    throw new EnvError([
      `MASTER_KEY does not open the keys sealed in this database (issuer ${unopened}): start with the master key it was created with (while rotating it, that key goes in PREVIOUS_MASTER_KEYS).`,
    ]);
  }
  // The PKCS#11 binding (a native addon) is imported only when a token is configured, and the vendor's
  // module is loaded on first use: a token that is down at start delays nothing; its issuers' requests
  // are refused (503) until it answers, and their readiness says so.
  // One provider per token of the module, all on the module's one thread (docs/key-custody.md).
  const pkcs11 = options.pkcs11
    ? (await importPkcs11Provider(database)).Pkcs11KeyProvider.forEachToken(options.pkcs11)
    : undefined;
  const deps: AppDeps = {
    database,
    config: defaultCoreConfig(options),
    secretBox,
    keyCustody: new KeyCustody([new SoftwareKeyProvider(secretBox), ...(pkcs11 ?? [])]),
    rateLimiter: await createRateLimiter(options.rateLimit, database.pool),
    signInThrottle: await createSignInThrottle(
      { ...SIGN_IN_THROTTLE, ...options.signInThrottle },
      database.pool,
    ),
    caches: new Caches(),
    idempotentInputs: idempotentInputParsers(appRouter),
    metrics: metrics?.domain ?? noDomainMetrics,
    // Present from the start, though unset: a traced request's copy of these deps sets it
    // (tracing/trace-scope.ts), and on Node 20 a spread that then adds a key its source lacks costs
    // ~0.9 µs and a new hidden class each time, one that only overwrites keys ~25 ns.
    outboundTrace: undefined,
  };

  const logStream = options.logFormat === "pretty" ? await prettyLogStream() : undefined;
  const app = Fastify({
    logger: {
      level: options.logLevel ?? "info",
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      ...(options.tracing && { mixin: traceIdsOfLogger }),
      ...(logStream && { stream: logStream }),
    },
    genReqId: genRequestId,
    logController: new LogController({ requestIdLogLabel: "requestId", disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
    trustProxy: trustProxySetting(options.trustProxy ?? ["loopback"]),
    // Answers given before the routes (and their hooks) run carry the request id and the envelope too.
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    // Requests while closing, and HTTP/1.1 requests without Host, are answered by registerProtocolGuards.
    return503OnClosing: false,
    http: { requireHostHeader: false },
  });
  logger = app.log;
  declareRequestFields(app);
  // Before any route is registered: it wraps the wallet steps' handlers as they are added.
  if (options.tracing) {
    registerRequestSpans(app);
    traceWalletSteps(app);
  }
  if (secretBox.previousKeyCount) {
    app.log.warn(
      { previousMasterKeys: secretBox.previousKeyCount },
      "master key rotation in progress: once every process runs with this MASTER_KEY, run `pnpm cli master-key reseal`, then remove PREVIOUS_MASTER_KEYS",
    );
  }
  registerJsonParser(app);
  // Hooks run in this order: the request id headers first, so every refusal after them carries them.
  registerRequestIds(app);
  registerProtocolGuards(app);
  registerStorableTargetCheck(app, pathParameterAt);
  registerErrorHandling(app, methodsForPath);
  const lifecycle = { draining: false };
  registerOps(app, deps, { quietProbes: options.logFormat === "pretty", lifecycle });
  if (metrics) registerRequestMetrics(app, metrics);
  if (metrics && exposure.port === undefined && exposure.token !== undefined)
    registerMetricsRoute(app, metrics.registry, exposure.token);
  registerOpenApi(app);
  mountRest(app, deps);
  registerWalletRoutes(app, deps);
  mountConsole(app, deps);

  let metricsListener: MetricsListener | undefined;
  if (metrics && exposure.port !== undefined) {
    try {
      metricsListener = await listenForMetrics(
        metrics.registry,
        { ...exposure, port: exposure.port },
        (err) => app.log.error({ err }, "metrics: collecting failed"),
      );
    } catch (error) {
      await app.close();
      await database.close();
      throw new StartupError(
        `Cannot serve the metrics on ${exposure.host ?? "127.0.0.1"}:${exposure.port} (METRICS_PORT): ${reasonOf(error)}`,
      );
    }
  }
  let operatorSocket: OperatorSocket | undefined;
  if (options.operatorSocket && database.kind === "embedded" && options.dataDir !== ":memory:") {
    try {
      operatorSocket = await listenForOperators(operatorSocketPath(options.dataDir), deps, app.log);
    } catch (error) {
      // The API serves without it: the CLI then says the database is in use, as before.
      app.log.warn(
        { err: error },
        "operator socket: cannot listen in DATA_DIR; pnpm cli cannot reach this process (stop it to use the CLI)",
      );
    }
  }
  const worker = options.runWorker ? createWebhookWorker(deps, app.log, options.workerOptions) : undefined;
  worker?.start();

  // Workers in other processes hear of this one's events at once (PostgreSQL only).
  const stopAnnouncing = database.pool ? announceOutboxWrites(database.pool, app.log) : undefined;

  return {
    app,
    deps,
    database,
    worker,
    metrics,
    metricsListener,
    beginDraining() {
      lifecycle.draining = true;
    },
    operatorSocket,
    async close() {
      // A keep-alive connection whose request was in flight when closing began would otherwise stay
      // open until its idle timeout (72 s) once answered: close connections as they fall idle, and all
      // of them after a deadline, well inside an orchestrator's usual 30 s grace period. The worker's
      // attempts in flight (at most the webhook timeout) finish meanwhile, not after.
      const idle = setInterval(() => app.server.closeIdleConnections(), 100);
      const deadline = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_DEADLINE_MS);
      try {
        await Promise.all([worker?.stop(), app.close()]);
      } finally {
        clearInterval(idle);
        clearTimeout(deadline);
      }
      stopAnnouncing?.();
      await operatorSocket?.close();
      await metricsListener?.close();
      await Promise.all((pkcs11 ?? []).map((provider) => provider.close()));
      await database.close();
    },
  };
}

/** The PKCS#11 provider; its binding is an optional native addon that a machine without compilers lacks. */
async function importPkcs11Provider(database: { close(): Promise<void> }) {
  try {
    return await import("./key-custody/pkcs11-key-provider");
  } catch (error) {
    await database.close();
    throw new EnvError([
      `PKCS11_MODULE is set, but the PKCS#11 binding (pkcs11js) does not load: ${(error as Error).message}. It is built by pnpm install when g++, make and python3 are installed; install them and run pnpm install again (docs/key-custody.md).`,
    ]);
  }
}
