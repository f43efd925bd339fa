import type { AppDeps } from "@cred/core";
import { listMigrations } from "@cred/db";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { quietInPrettyLog } from "./log-format";

/** The server's loggers are pino's, which fastify's type does not say have `isLevelEnabled`. */
type PinoLogger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

/** Whether the process is draining (shutdown begun, still serving): /readyz then answers 503. */
export interface Lifecycle {
  draining: boolean;
}

/**
 * Liveness, readiness and the one access-log line per request (ids, status, timing; never secrets). With
 * `quietProbes` (pretty logs on a terminal) the probes' and scrapes' requests, and the console's successful
 * reads (its polling), get no line (quietInPrettyLog).
 */
export function registerOps(
  app: FastifyInstance,
  deps: AppDeps,
  { quietProbes = false, lifecycle }: { quietProbes?: boolean; lifecycle?: Lifecycle } = {},
) {
  // A callback hook (no promise per request) that builds its line only when the level writes it: at
  // LOG_LEVEL=warn a request costs no log object and no read of routeOptions, which makes an object.
  app.addHook("onResponse", (request, reply, done) => {
    if ((request.log as PinoLogger).isLevelEnabled("info")) {
      const route = request.routeOptions.url;
      const status = reply.statusCode;
      if (!(quietProbes && quietInPrettyLog({ method: request.method, route, status })))
        request.log.info(
          {
            method: request.method,
            route,
            status,
            ms: Math.round(reply.elapsedTime),
            clientRequestId: request.clientRequestId,
          },
          "request",
        );
    }
    done();
  });
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    // A load balancer stops sending requests here while every other route still answers them.
    if (lifecycle?.draining) return reply.code(503).send({ status: "draining" });
    try {
      const rows = await deps.database.root.prisma.$queryRaw<{ migration_name: string }[]>`
        SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
      const applied = new Set(rows.map((r) => r.migration_name));
      const pending = listMigrations().filter((m) => !applied.has(m));
      if (pending.length > 0) return reply.code(503).send({ status: "migrations pending", pending });
      return { status: "ready", database: deps.database.kind };
    } catch (error) {
      reply.log.warn({ err: error }, "readiness: the database did not answer");
      return reply.code(503).send({ status: "database unreachable" });
    }
  });
}
