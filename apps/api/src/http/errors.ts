import {
  ERROR_STATUS,
  type ErrorCode,
  type ErrorEnvelope,
  isKeyCustodyUnavailable,
  isUnstorableTextViolation,
  UNSTORABLE_TEXT_MESSAGE,
} from "@cred/core";
import { OAuthError } from "@cred/oid4vc";
import type { FastifyError, FastifyInstance, FastifyReply } from "fastify";
import { sendOAuthError } from "../wallet/oauth-error-reply";
import { UnstorableTextError } from "./storable-text";

export function sendError(
  reply: FastifyReply,
  code: ErrorCode,
  message: string,
  extra: {
    headers?: Record<string, string>;
    details?: { code: string; target: string; message: string }[];
  } = {},
) {
  if (extra.headers) reply.headers(extra.headers);
  return reply
    .code(ERROR_STATUS[code])
    .type("application/json")
    .send({
      error: {
        code,
        message,
        requestId: reply.request.id,
        ...(extra.details ? { details: extra.details } : {}),
      },
    });
}

/** An error already rendered (`toErrorEnvelope`), answered under this request's id. */
export function sendErrorEnvelope(
  reply: FastifyReply,
  rendered: { status: number; envelope: ErrorEnvelope; headers?: Record<string, string> },
) {
  if (rendered.headers) reply.headers(rendered.headers);
  return reply
    .code(rendered.status)
    .type("application/json")
    .send({ error: { ...rendered.envelope.error, requestId: reply.request.id } });
}

const FASTIFY_CODES: Record<string, [ErrorCode, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ["PayloadTooLarge", "The request body is too large."],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ["UnsupportedMediaType", "This content type is not supported here."],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
    "ValidationFailed",
    "The Content-Length header does not match the body.",
  ],
  FST_ERR_CTP_EMPTY_JSON_BODY: ["MalformedJson", "The request body is empty."],
  MALFORMED_JSON: ["MalformedJson", "The request body is not valid JSON."],
  // The client closed the connection (or Node's parser refused the rest) while the body was read: the
  // answer goes nowhere, and it is no server failure to log.
  ECONNRESET: ["MalformedRequest", "The connection closed before the request body was complete."],
};

/**
 * Every framework-level failure leaves in the ErrorEnvelope (on wallet endpoints, in the OAuth shape with
 * the route's code: `oauthErrors`); unexpected ones as a bare 500. `restMethodsOf` tells the methods of a
 * REST path (its routes are wildcards, which would allow every method).
 */
export function registerErrorHandling(app: FastifyInstance, restMethodsOf: (path: string) => string[]) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const oauthCode = request.routeOptions.config?.oauthErrorCode;
    // Wallet endpoints: the OAuth shape, whose `error` a wallet reads as a string (RFC 6749 §5.2).
    const oauthError = (status: number, code: string, description: string) =>
      sendOAuthError(reply, new OAuthError(code, description, { status }));
    // Text the database cannot store, anywhere in the request (http/storable-text.ts).
    if (error instanceof UnstorableTextError) {
      if (oauthCode) return oauthError(400, oauthCode, error.message);
      return sendError(reply, "ValidationFailed", "The request is not valid; see details.", {
        details: [{ code: "InvalidCharacter", target: error.target, message: error.message }],
      });
    }
    // Such text that arrived deeper (inside a JSON-valued form parameter, say): the database refused it.
    if (isUnstorableTextViolation(error)) {
      if (oauthCode) return oauthError(400, oauthCode, UNSTORABLE_TEXT_MESSAGE);
      return sendError(reply, "ValidationFailed", UNSTORABLE_TEXT_MESSAGE);
    }
    // A key store (an HSM) unreachable: nothing was written, and the same request can be sent again
    // after Retry-After. Wallets get the OAuth `server_error` (with status 503), others the envelope.
    if (isKeyCustodyUnavailable(error)) {
      request.log.warn({ reason: error.message }, "key store unreachable");
      reply.headers(error.headers ?? {});
      if (oauthCode)
        return oauthError(
          503,
          "server_error",
          "The issuer's key is temporarily unavailable; retry after the time in Retry-After.",
        );
      return sendError(reply, "KeyCustodyUnavailable", error.message);
    }
    const known = error.code ? FASTIFY_CODES[error.code] : undefined;
    if (oauthCode && (known || error.validation)) {
      return oauthError(400, oauthCode, known?.[1] ?? "The request is not valid.");
    }
    if (known) return sendError(reply, known[0], known[1]);
    if (error.validation) return sendError(reply, "ValidationFailed", "The request is not valid.");
    request.log.error({ err: error }, "unhandled error");
    if (oauthCode) return oauthError(500, "server_error", "An unexpected error occurred.");
    return sendError(
      reply,
      "InternalError",
      "An unexpected error occurred. Quote the request id when contacting support.",
    );
  });
  app.setNotFoundHandler((request, reply) => {
    const allowed = allowedMethods(app, restMethodsOf, request.url, request.method);
    if (allowed.length > 0) {
      reply.header("Allow", allowed.join(", "));
      return sendError(reply, "MethodNotAllowed", `Use one of: ${allowed.join(", ")}.`);
    }
    return sendError(reply, "RouteNotFound", "No operation matches this path.");
  });
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

function allowedMethods(
  app: FastifyInstance,
  restMethodsOf: (path: string) => string[],
  url: string,
  method: string,
): string[] {
  const path = url.split("?")[0] ?? url;
  if (path.startsWith("/v1.0/") || path.startsWith("/management/")) return restMethodsOf(path);
  return METHODS.filter((m) => m !== method && app.findRoute({ method: m, url: path }) !== null);
}
