import type { IncomingMessage } from "node:http";
import { register } from "node:module";
import { FastifyInstrumentation } from "@opentelemetry/instrumentation-fastify";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { createAddHookMessageChannel } from "import-in-the-middle";

/** Probes and scrapes: no trace for each of them. */
const UNTRACED_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * Starts the OpenTelemetry SDK (configured by the OTEL_* variables: exporter, endpoint, protocol,
 * sampler, batch delays) with the http, fastify, pg and undici instrumentations. The server's registry
 * packages are ES module imports (the bundle loads them by path), which only an ESM loader hook can
 * patch: import-in-the-middle's, told through a message channel to wrap just the modules an
 * instrumentation asks for, rather than every module the process loads.
 */
export async function startTracing(serviceName: string): Promise<void> {
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register("import-in-the-middle/hook.mjs", import.meta.url, registerOptions);
  const sdk = new NodeSDK({
    serviceName,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request: IncomingMessage) =>
          UNTRACED_PATHS.has((request.url ?? "").split("?")[0] ?? ""),
      }),
      new FastifyInstrumentation(),
      // Statements outside a request or a webhook attempt (the worker's polling) would each be a trace.
      new PgInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  sdk.start();
  await waitForAllMessagesAcknowledged();
}
