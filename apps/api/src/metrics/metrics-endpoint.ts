import { timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import type { Registry } from "prom-client";

/**
 * Where `/metrics` is served (docs/operations.md): on a listener of its own (`port`, on `host`,
 * loopback unless set), or on the API's port behind a bearer token. With neither it is not served at
 * all (404): the metrics describe the whole platform, so they are never public by default. With a
 * port and a token, the listener asks for the token too.
 */
export interface MetricsExposure {
  /** METRICS_PORT: a separate listener (0 picks a free port: tests). */
  port?: number;
  /** METRICS_HOST: the separate listener's address (default 127.0.0.1). */
  host?: string;
  /** METRICS_TOKEN: required as `Authorization: Bearer <token>`. */
  token?: string;
}

export const METRICS_PATH = "/metrics";

function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer +(\S+)\s*$/i.exec(header ?? "");
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const UNAUTHORIZED = {
  error: "unauthorized",
  error_description: "Send the metrics token as a Bearer token.",
};

/** `/metrics` on the API's own port, behind the token. */
export function registerMetricsRoute(app: FastifyInstance, registry: Registry, token: string) {
  app.get(METRICS_PATH, async (request, reply) => {
    if (!bearerMatches(request.headers.authorization, token)) {
      return reply.code(401).header("WWW-Authenticate", 'Bearer realm="metrics"').send(UNAUTHORIZED);
    }
    const text = await registry.metrics();
    return reply.header("Cache-Control", "no-store").type(registry.contentType).send(text);
  });
}

export interface MetricsListener {
  address: AddressInfo;
  close(): Promise<void>;
}

/** A plain HTTP listener serving only `GET /metrics` (the token checked when set). */
export async function listenForMetrics(
  registry: Registry,
  exposure: MetricsExposure & { port: number },
  onError: (error: unknown) => void,
): Promise<MetricsListener> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== METRICS_PATH) {
      res
        .writeHead(404, { "content-type": "text/plain" })
        .end("Not found: this listener serves /metrics only.\n");
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" }).end("Use GET.\n");
      return;
    }
    if (exposure.token !== undefined && !bearerMatches(req.headers.authorization, exposure.token)) {
      res
        .writeHead(401, { "www-authenticate": 'Bearer realm="metrics"', "content-type": "application/json" })
        .end(JSON.stringify(UNAUTHORIZED));
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { "content-type": registry.contentType, "cache-control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : text);
      },
      (error: unknown) => {
        onError(error);
        res.writeHead(500, { "content-type": "text/plain" }).end("Collecting the metrics failed.\n");
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(exposure.port, exposure.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    address: server.address() as AddressInfo,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
