import { TRPCError } from "@trpc/server";
import { DomainError, type ErrorDetail, type ErrorEnvelope } from "./errors";
import { isUnstorableTextViolation } from "./sql-errors";

/** The answer to text the database refused to store (sql-errors.ts), wherever it was in the request. */
export const UNSTORABLE_TEXT_MESSAGE =
  "A value in the request contains a NUL character (U+0000) or an unpaired UTF-16 surrogate, which cannot be accepted; remove it.";

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

/** Details listed at most (a body of 100 000 unknown members must not become a 10 MB answer). */
const MAX_DETAILS = 20;
const MAX_NAME = 100;
const clip = (name: string) => (name.length > MAX_NAME ? `${name.slice(0, MAX_NAME)}…` : name);

function zodDetails(issues: ZodLikeIssue[]): ErrorDetail[] {
  const details = issues.flatMap((issue) => {
    const at = issue.path.map((segment) => clip(String(segment)));
    // One detail per unknown member, naming it, rather than the validator's list of them.
    if (issue.code === "unrecognized_keys" && issue.keys?.length) {
      return issue.keys.map((key) => ({
        code: "UnknownField",
        target: [...at, clip(key)].join("."),
        message: `'${clip(key)}' is not a field of this request; remove it.`,
      }));
    }
    return [{ code: "InvalidValue", target: at.join(".") || "body", message: issue.message }];
  });
  if (details.length <= MAX_DETAILS) return details;
  return [
    ...details.slice(0, MAX_DETAILS),
    {
      code: "TooManyProblems",
      target: "body",
      message: `${details.length - MAX_DETAILS} more problems are not listed; fix these first.`,
    },
  ];
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
  if (isUnstorableTextViolation(cause) || isUnstorableTextViolation(error)) {
    return {
      status: 400,
      envelope: { error: { code: "ValidationFailed", message: UNSTORABLE_TEXT_MESSAGE, requestId } },
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
