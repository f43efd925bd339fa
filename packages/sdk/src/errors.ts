/** One offending field of a request, as the ErrorEnvelope's `details[]` names it. */
export interface CredErrorDetail {
  code: string;
  target: string;
  message: string;
}

/** The API's error body: `{ "error": { code, message, requestId, details? } }` (docs/api/errors.md). */
interface ErrorEnvelope {
  error: { code: string; message: string; requestId: string; details?: CredErrorDetail[] };
}

function isErrorEnvelope(body: unknown): body is ErrorEnvelope {
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  return typeof error?.code === "string" && typeof error.message === "string";
}

/**
 * An answer other than 2xx from the API. `code` is the envelope's stable PascalCase code (`NotFound`,
 * `ValidationFailed`, `Throttled`, …); a response that carries no envelope (a proxy's 502 page, say)
 * reads as `UnexpectedResponse`. `requestId` is the one to quote in a support request: the envelope's,
 * else the `x-ms-request-id` header.
 */
export class CredApiError extends Error {
  override readonly name = "CredApiError";
  readonly status: number;
  readonly code: string;
  readonly requestId: string | null;
  readonly details: CredErrorDetail[];
  /** The response's `Retry-After` in seconds, when it gave one (429 `Throttled`). */
  readonly retryAfterSeconds: number | null;

  constructor(fields: {
    status: number;
    code: string;
    message: string;
    requestId: string | null;
    details?: CredErrorDetail[];
    retryAfterSeconds?: number | null;
  }) {
    super(fields.message);
    this.status = fields.status;
    this.code = fields.code;
    this.requestId = fields.requestId;
    this.details = fields.details ?? [];
    this.retryAfterSeconds = fields.retryAfterSeconds ?? null;
  }

  /** The error of a non-2xx `response` whose body has already been read into `body` (JSON or text). */
  static fromResponse(response: Response, body: unknown): CredApiError {
    const headerId = response.headers.get("x-ms-request-id");
    const retryAfter = Number(response.headers.get("retry-after"));
    const retryAfterSeconds =
      response.headers.has("retry-after") && Number.isFinite(retryAfter) ? retryAfter : null;
    if (isErrorEnvelope(body)) {
      return new CredApiError({
        status: response.status,
        code: body.error.code,
        message: body.error.message,
        requestId: body.error.requestId ?? headerId,
        details: body.error.details,
        retryAfterSeconds,
      });
    }
    return new CredApiError({
      status: response.status,
      code: "UnexpectedResponse",
      message: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""} without an error envelope`,
      requestId: headerId,
      retryAfterSeconds,
    });
  }
}
