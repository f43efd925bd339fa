import type { AppDeps } from "@cred/core";
import { listMigrations } from "@cred/db";
import type { FastifyInstance } from "fastify";
import { quietInPrettyLog } from "./log-format";

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
  app.addHook("onResponse", async (request, reply) => {
    const route = request.routeOptions.url;
    if (quietProbes && quietInPrettyLog({ method: request.method, route, status: reply.statusCode })) return;
    request.log.info(
      {
        method: request.method,
        route,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
        clientRequestId: request.clientRequestId,
      },
      "request",
    );
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
