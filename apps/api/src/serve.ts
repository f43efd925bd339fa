import fs from "node:fs";
import path from "node:path";
import { bootstrap } from "@cred/core";
import { exitOnStartupError, loadMasterKeys, orExit, readEnvOrExit, webhookSettings } from "./env";
import { chooseLogFormat } from "./http/log-format";
import { createServer } from "./server";
import { flushTraces } from "./tracing/flush-traces";

const env = readEnvOrExit();
const webhook = webhookSettings(env);
const publicBaseUrl = env.publicBaseUrl ?? `http://localhost:${env.port}`;
const server = await createServer({
  databaseUrl: env.databaseUrl,
  directDatabaseUrl: env.directDatabaseUrl,
  dataDir: env.dataDir,
  embeddedSharedBuffersMb: env.embeddedSharedBuffersMb,
  ...orExit(() => loadMasterKeys(env)),
  publicBaseUrl,
  developmentMode: env.developmentMode,
  logLevel: env.logLevel,
  logFormat: chooseLogFormat({
    requested: env.logFormat,
    developmentMode: env.developmentMode,
    stdoutIsTerminal: process.stdout.isTTY === true,
  }),
  tracing: env.tracing,
  rateLimit: { points: env.rateLimitPoints, durationSeconds: env.rateLimitWindowSeconds },
  webhookAllowedHosts: env.webhookAllowedHosts,
  config: webhook.config,
  runWorker: env.runWorker,
  operatorSocket: true,
  trustProxy: env.trustProxy,
  workerOptions: webhook.workerOptions,
  metrics: env.metrics,
  ...(env.pkcs11 ? { pkcs11: env.pkcs11 } : {}),
}).catch(exitOnStartupError); // e.g. a master key that does not fit the database, or no database: one line, exit 1

const created = await bootstrap(server.database.root, env.bootstrapAdminEmail);
const bootstrapFile = path.join(env.dataDir, "bootstrap.json");
if (created) {
  fs.mkdirSync(env.dataDir, { recursive: true });
  fs.writeFileSync(bootstrapFile, `${JSON.stringify(created, null, 2)}\n`, { mode: 0o600 });
}

await server.app.listen({ host: env.host, port: env.port });

const lines = [
  "",
  `Credential platform is running (${server.database.kind === "embedded" ? `embedded database in ${env.dataDir}` : "PostgreSQL"}).`,
  `  API:            ${publicBaseUrl}  (Product /v1.0, Management /management?api-version=2026-08-30)`,
  `  API reference:  ${publicBaseUrl}/docs   OpenAPI: ${publicBaseUrl}/openapi.json`,
];
if (created && !env.developmentMode) {
  // Standard output usually ends up in a log store: there, only say where the secrets are.
  lines.push(
    `  First start: bootstrap credentials (an all-scope sandbox API key, the console admin's login) were`,
    `  written to ${bootstrapFile} (mode 600). Store them safely and delete the file.`,
  );
} else if (created) {
  lines.push(
    `  First start: bootstrap credentials (shown once; also written to ${bootstrapFile}):`,
    `    Sandbox API key (all tenant scopes): ${created.apiKey}`,
    `    Console admin and platform operator (Tenants page): ${created.consoleEmail} / ${created.consolePassword}`,
    `  Try: curl -H "Authorization: ApiKey ${created.apiKey}" "${publicBaseUrl}/management/organisations?api-version=2026-08-30"`,
  );
} else {
  lines.push(`  Bootstrap credentials were printed on first start; see ${bootstrapFile}.`);
}
const loopbackHost = ["127.0.0.1", "localhost", "::1"].includes(env.host);
if (env.developmentMode && (!loopbackHost || publicBaseUrl.startsWith("https:"))) {
  // Development mode is the default unless NODE_ENV=production; a deployment that forgot it would let
  // tenants point webhooks and JWKS fetches at loopback addresses.
  lines.push(
    "  WARNING: development mode is on (NODE_ENV is not production) while this server looks deployed",
    `  (HOST ${env.host}, ${publicBaseUrl}): webhooks and outbound fetches may reach loopback addresses and`,
    "  http URLs are accepted. Set NODE_ENV=production (and MASTER_KEY) for a deployment.",
  );
}
if (server.metricsListener) {
  const { address, port } = server.metricsListener.address;
  lines.push(`  Metrics:        http://${address.includes(":") ? `[${address}]` : address}:${port}/metrics`);
} else if (env.metrics.token) {
  lines.push(`  Metrics:        ${publicBaseUrl}/metrics (Authorization: Bearer <METRICS_TOKEN>)`);
}
process.stdout.write(`${lines.join("\n")}\n\n`);

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    if (env.shutdownDrainSeconds > 0) {
      // Readiness-gated: the balancer sees /readyz fail and stops sending requests; those it still
      // sends meanwhile are served. Only then does the listener close.
      server.beginDraining();
      server.app.log.info({ signal, seconds: env.shutdownDrainSeconds }, "draining: /readyz answers 503");
      await new Promise((r) => setTimeout(r, env.shutdownDrainSeconds * 1000));
    }
    server.app.log.info({ signal }, "shutting down");
    await server.close();
    await flushTraces();
    process.exit(0);
  });
}
