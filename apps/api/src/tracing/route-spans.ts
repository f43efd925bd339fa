import { context } from "@opentelemetry/api";
import { getRPCMetadata, RPCType } from "@opentelemetry/core";
import type { FastifyInstance } from "fastify";

/**
 * Names each request's server span (the http instrumentation's) by its route, `POST
 * /issuers/:issuerId/token`, and gives it `http.route`: the instrumentation reads the route from the
 * request's RPC metadata as the span ends. One hook, no span of its own: the fastify instrumentation did
 * the same while wrapping every hook and handler in a span, most of a request's spans and of tracing's cost.
 */
export function nameRequestSpansByRoute(app: FastifyInstance) {
  app.addHook("onRequest", (request, _reply, done) => {
    const route = request.routeOptions.url;
    const metadata = route === undefined ? undefined : getRPCMetadata(context.active());
    if (metadata?.type === RPCType.HTTP) metadata.route = route;
    done();
  });
}
