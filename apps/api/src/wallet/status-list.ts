import { gzipSync } from "node:zlib";
import { type AppDeps, cacheSpec } from "@cred/core";
import { statusListToken } from "@cred/core/wallet";
import type { FastifyInstance } from "fastify";
import { acceptsGzip, gzipEtag, matchesIfNoneMatch } from "../http/conditional";
import { sendError } from "../http/errors";
import { requestDeps } from "../tracing/request-spans";
import { wantsOnlyCwt } from "./media-ranges";
import { notFound } from "./oauth-reply";
import type { IssuerParams } from "./wallet-issuer";

/** Gzipped status list tokens by entity tag: each token is compressed once, not per fetch. */
const GZIPPED_STATUS_LISTS = cacheSpec<Buffer>("wallet.gzippedStatusLists", { max: 256 });

/** The status list tokens of every issuer (Token Status List §8): JWT only, gzip where accepted, ETag. */
export function registerStatusList(app: FastifyInstance, deps: AppDeps) {
  const gzippedTokens = deps.caches.of(GZIPPED_STATUS_LISTS);

  app.get("/issuers/:issuerId/status-lists/:listId", async (request, reply) => {
    const { issuerId, listId } = request.params as IssuerParams & { listId: string };
    reply.header("Access-Control-Allow-Origin", "*");
    // Token Status List §8.4: a server without historical resolution SHOULD answer `time` with 501.
    if ((request.query as Record<string, unknown>).time !== undefined) {
      return sendError(reply, "NotImplemented", "Status lists at a past time are not offered; omit time.");
    }
    const result = await statusListToken(requestDeps(request, deps), issuerId, listId);
    if (!result) return notFound(reply, "The status list");
    if (wantsOnlyCwt(request.headers.accept)) {
      return reply
        .code(406)
        .type("application/json")
        .send({
          error: {
            code: "NotAcceptable",
            message: "Status lists are served as application/statuslist+jwt only.",
            requestId: request.id,
          },
        });
    }
    // Token Status List: the list SHOULD be served with gzip Content-Encoding (when the client accepts it).
    const gzip = acceptsGzip(request.headers["accept-encoding"]);
    reply.headers({
      "Cache-Control": "max-age=0, must-revalidate",
      ETag: gzip ? gzipEtag(result.etag) : result.etag,
      Vary: "Accept, Accept-Encoding",
    });
    if (matchesIfNoneMatch(request.headers["if-none-match"], [result.etag, gzipEtag(result.etag)])) {
      return reply.code(304).send();
    }
    reply.type("application/statuslist+jwt");
    if (!gzip) return reply.send(result.token);
    let gzipped = gzippedTokens.peek(result.etag);
    if (!gzipped) {
      gzipped = gzipSync(result.token, { level: 9 });
      gzippedTokens.set(result.etag, gzipped);
    }
    return reply.header("Content-Encoding", "gzip").send(gzipped);
  });
}
