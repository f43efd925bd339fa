import { TRPCError } from "@trpc/server";
import { DomainError, type ErrorDetail, type ErrorEnvelope } from "./errors";

interface ZodLikeIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  /** unrecognized_keys: the unknown members. */
  keys?: string[];
}

const TRPC_FALLBACK: Record<string, [number, string, string]> = {
  PARSE_ERROR: [400, "MalformedJson", "The request body is not valid JSON."],
  // tRPC's own refusals of a request's shape, e.g. a console batch over its size limit.
  BAD_REQUEST: [400, "ValidationFailed", "The request is not valid."],
  PAYLOAD_TOO_LARGE: [413, "PayloadTooLarge", "The request body is too large."],
  UNSUPPORTED_MEDIA_TYPE: [415, "UnsupportedMediaType", "Send the request body as application/json."],
  NOT_FOUND: [404, "RouteNotFound", "No operation matches this path."],
  METHOD_NOT_SUPPORTED: [405, "MethodNotAllowed", "This method is not allowed on this path."],
  TOO_MANY_REQUESTS: [429, "Throttled", "Too many requests."],
};

function zodDetails(issues: ZodLikeIssue[]): ErrorDetail[] {
  return issues.flatMap((issue) => {
    const at = issue.path.map(String);
    // One detail per unknown member, naming it, rather than the validator's list of them.
    if (issue.code === "unrecognized_keys" && issue.keys?.length) {
      return issue.keys.map((key) => ({
        code: "UnknownField",
        target: [...at, key].join("."),
        message: `'${key}' is not a field of this request; remove it.`,
      }));
    }
    return [{ code: "InvalidValue", target: at.join(".") || "body", message: issue.message }];
  });
}

/** Turns any thrown value into the documented envelope and its HTTP status. Never leaks internals. */
export function toErrorEnvelope(
  error: unknown,
  requestId: string,
): { status: number; envelope: ErrorEnvelope; headers?: Record<string, string> } {
  const cause = error instanceof TRPCError ? error.cause : error;
  if (cause instanceof DomainError) {
    return {
      status: cause.status,
      headers: cause.headers,
      envelope: {
        error: {
          code: cause.code,
          message: cause.message,
          requestId,
          ...(cause.details?.length ? { details: cause.details } : {}),
        },
      },
    };
  }
  if (error instanceof TRPCError) {
    if (error.code === "BAD_REQUEST" && cause instanceof Error && cause.name === "ZodError") {
      const issues = (cause as unknown as { issues: ZodLikeIssue[] }).issues;
      return {
        status: 400,
        envelope: {
          error: {
            code: "ValidationFailed",
            message: "The request is not valid; see details.",
            requestId,
            details: zodDetails(issues),
          },
        },
      };
    }
    const fallback = TRPC_FALLBACK[error.code];
    if (fallback) {
      const [status, code, message] = fallback;
      return { status, envelope: { error: { code, message, requestId } } };
    }
  }
  return {
    status: 500,
    envelope: {
      error: {
        code: "InternalError",
        message: "An unexpected error occurred. Quote the request id when contacting support.",
        requestId,
      },
    },
  };
}
