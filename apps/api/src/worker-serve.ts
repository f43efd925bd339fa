// `pnpm worker`: the webhook delivery worker (and sweeper) as a process of its own, for scale. Run as
// many as needed against one PostgreSQL database; set RUN_WORKER=false on the API processes to keep
// delivery out of them. The embedded database belongs to the API process, which runs the worker itself.
import { Caches, KeyCustody, SecretBox, SoftwareKeyProvider } from "@cred/core";
import { openDatabase } from "@cred/db";
import pino from "pino";
import { loadMasterKeys, orExit, readEnvOrExit, webhookSettings } from "./env";
import { defaultCoreConfig, REDACTED_PATHS } from "./server";
import { flushTraces } from "./tracing/flush-traces";
import { createWebhookWorker } from "./worker";

const env = readEnvOrExit();
const webhook = webhookSettings(env);
const logger = pino({
  level: env.logLevel,
  redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
});
if (!env.databaseUrl) {
  logger.error(
    "The separate worker needs PostgreSQL (DATABASE_URL). With the embedded database the API process delivers webhooks itself (RUN_WORKER, on by default).",
  );
  process.exit(1);
}

const { masterKey, previousMasterKeys } = orExit(() => loadMasterKeys(env));
const database = openDatabase({
  databaseUrl: env.databaseUrl,
  directDatabaseUrl: env.directDatabaseUrl,
  dataDir: env.dataDir,
  poolSize: 4,
});
const config = defaultCoreConfig({
  dataDir: env.dataDir,
  masterKey,
  publicBaseUrl: env.publicBaseUrl ?? `http://localhost:${env.port}`,
  developmentMode: env.developmentMode,
  rateLimit: { points: env.rateLimitPoints, durationSeconds: env.rateLimitWindowSeconds },
  webhookAllowedHosts: env.webhookAllowedHosts,
  config: webhook.config,
});
const secretBox = new SecretBox(masterKey, previousMasterKeys);
// The sweeper destroys request encryption keys in a PKCS#11 token once their overlap ends.
const pkcs11 = env.pkcs11
  ? (await import("./key-custody/pkcs11-key-provider")).Pkcs11KeyProvider.forEachToken(env.pkcs11)
  : undefined;
const keyCustody = new KeyCustody([new SoftwareKeyProvider(secretBox), ...(pkcs11 ?? [])]);
const worker = createWebhookWorker(
  { database, config, secretBox, keyCustody, caches: new Caches() },
  logger,
  webhook.workerOptions,
);
worker.start();
logger.info({ pid: process.pid }, "webhook worker started");

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, async () => {
    if (stopping) {
      // A second signal: abandon attempts in flight (their leases expire; another worker retries).
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, "webhook worker stopping: finishing attempts in flight");
    await worker.stop();
    await database.close();
    logger.info("webhook worker stopped");
    await flushTraces();
    process.exit(0);
  });
}
