import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { ERROR_STATUS, type ErrorCode } from "@cred/core";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { sendError } from "./errors";
import { genRequestId, setRequestIdHeaders } from "./request-ids";

/**
 * The answers the server gives before a route runs: Node's HTTP parser refusing a request (`clientError`),
 * Fastify's router refusing a URL (`frameworkErrors`), an unmet `Expect`, a CONNECT, a missing `Host` and
 * requests arriving while the server closes. Each carries `x-ms-request-id` and the ErrorEnvelope, as
 * every other response does (docs/api/errors.md lists them).
 */

/** An error response of the server's own, with a fresh request id (no Fastify request exists yet). */
function rawError(code: ErrorCode, message: string) {
  const requestId = genRequestId();
  const status = ERROR_STATUS[code];
  const body = JSON.stringify({ error: { code, message, requestId } });
  return {
    requestId,
    status,
    body,
    headers: {
      "x-ms-request-id": requestId,
      "content-type": "application/json; charset=utf-8",
      "content-length": String(Buffer.byteLength(body)),
      connection: "close",
    },
  };
}

/** The same as the bytes of an HTTP/1.1 response, for a socket with no response object. */
function rawResponseBytes(response: ReturnType<typeof rawError>): string {
  const head = Object.entries(response.headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status]}\r\n${head.join("")}\r\n${response.body}`;
}

/** What Node's parser reports (llhttp `HPE_*` codes, Node's timeouts), as the answer to give. */
const CLIENT_ERRORS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: [
    "HeadersTooLarge",
    "The request line and headers are larger than the server accepts (16 KiB together).",
  ],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: ["PayloadTooLarge", "The chunk extensions of the body are too large."],
  ERR_HTTP_REQUEST_TIMEOUT: ["RequestTimeout", "The request was not received in time."],
};
const NOT_HTTP: [ErrorCode, string] = ["MalformedRequest", "The request is not valid HTTP/1.1."];

/**
 * Fastify's `clientErrorHandler`: Node's HTTP parser refused the bytes (or a timeout passed) before any
 * request existed. The answer is written to the socket directly, as Node does, unless the socket is gone
 * or a response on it has begun (an answer now would corrupt that one); then the connection closes.
 */
export function answerClientError(
  this: FastifyInstance,
  error: Error & { code?: string },
  socket: Duplex & { _httpMessage?: ServerResponse | null },
) {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [code, message] = CLIENT_ERRORS[error.code ?? ""] ?? NOT_HTTP;
  const response = rawError(code, message);
  this.log.info(
    { requestId: response.requestId, status: response.status, reason: error.code },
    "request refused by the HTTP parser",
  );
  if (socket.writable && !socket._httpMessage?.headersSent) socket.write(rawResponseBytes(response));
  socket.destroy(error);
}

/**
 * Fastify's `frameworkErrors`: the router refused the URL before the hooks ran (so the request id
 * headers are set here): a path whose percent-encoding is not UTF-8, or a path parameter over 100
 * characters (`maxParamLength`).
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  setRequestIdHeaders(request, reply);
  if (error.code === "FST_ERR_BAD_URL") {
    return sendError(
      reply,
      "MalformedUrl",
      "The URL path is not valid: percent-encoding must decode to UTF-8.",
    );
  }
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH") {
    return sendError(reply, "UriTooLong", "A path parameter is longer than 100 characters.");
  }
  request.log.error({ err: error }, "router error");
  return sendError(
    reply,
    "InternalError",
    "An unexpected error occurred. Quote the request id when contacting support.",
  );
}

/**
 * Requests Node would answer on its own (an `Expect` other than 100-continue: 417; CONNECT: the socket
 * closed) or Fastify would (while closing: 503), and a request without the `Host` HTTP/1.1 requires
 * (the server is created with `requireHostHeader: false`, so Node lets it through to be answered here).
 */
export function registerProtocolGuards(app: FastifyInstance) {
  app.server.on("checkExpectation", (_request: IncomingMessage, res: ServerResponse) => {
    const response = rawError("ExpectationFailed", "Only the expectation 100-continue is supported.");
    res.writeHead(response.status, response.headers).end(response.body);
  });
  app.server.on("connect", (_request: IncomingMessage, socket: Duplex) => {
    const response = rawError("MethodNotAllowed", "CONNECT is not supported: this server is not a proxy.");
    socket.end(rawResponseBytes(response));
  });

  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onRequest", async (request, reply) => {
    if (closing) {
      reply.header("Connection", "close");
      return sendError(reply, "ServiceUnavailable", "The server is shutting down; send the request again.");
    }
    if (request.raw.httpVersion === "1.1" && request.headers.host === undefined) {
      return sendError(reply, "MalformedRequest", "An HTTP/1.1 request needs a Host header (RFC 9112 §3.2).");
    }
  });
}
