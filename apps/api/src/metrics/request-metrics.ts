import type { FastifyInstance, FastifyRequest } from "fastify";
import { CONSOLE_TRPC_PREFIX } from "../console/mount-console";
import { consoleProcedureLabel, oauthErrorLabel, WALLET_ENDPOINTS } from "./labels";
import type { ServerMetrics, Surface } from "./server-metrics";

const REST_ROUTES = new Set(["/v1.0/*", "/management/*"]);
const CONSOLE_ROUTE = `${CONSOLE_TRPC_PREFIX}/*`;

/** A request's surface and operation label: from the route pattern and what the handler recorded, never the URL. */
function labelOf(request: FastifyRequest): { surface: Surface; operation: string; wallet?: string } {
  const route = request.routeOptions.url;
  if (route === undefined) return { surface: "unmatched", operation: "none" };
  if (REST_ROUTES.has(route)) return { surface: "rest", operation: request.metricsOperation ?? "unmatched" };
  if (route === CONSOLE_ROUTE) {
    const path = (request.params as { "*"?: string })["*"] ?? "";
    return { surface: "console", operation: consoleProcedureLabel(path) };
  }
  const wallet = WALLET_ENDPOINTS[route];
  if (wallet) return { surface: "wallet", operation: wallet, wallet };
  // Health, readiness, the OpenAPI document and /docs: route patterns the server itself declares.
  return { surface: "ops", operation: route };
}

/** Counts and times every answered request (RED per operation) and wallet outcomes by error code. */
export function registerRequestMetrics(app: FastifyInstance, metrics: ServerMetrics) {
  // A callback hook rather than an async one: no promise per request.
  app.addHook("onResponse", (request, reply, done) => {
    const { surface, operation, wallet } = labelOf(request);
    const status = reply.statusCode;
    metrics.request(surface, operation, status, reply.elapsedTime / 1000);
    if (wallet) {
      const outcome = request.oauthError
        ? oauthErrorLabel(request.oauthError)
        : status < 400
          ? "ok"
          : "other";
      metrics.walletOutcome(wallet, outcome);
    }
    done();
  });
}
