/** Stable, documented error codes and the HTTP status each one maps to (docs/api/errors.md). */
export const ERROR_STATUS = {
  ValidationFailed: 400,
  MalformedJson: 400,
  MalformedUrl: 400,
  MalformedRequest: 400,
  UnknownClaim: 400,
  PlatformLimit: 400,
  MissingApiVersion: 400,
  UnsupportedApiVersion: 400,
  InvalidIdempotencyKey: 400,
  ReadOnlyField: 400,
  UnknownPolicy: 400,
  IssuerRequired: 400,
  RevocationNotSupported: 400,
  WebhookUrlNotAllowed: 400,
  InvalidCertificate: 400,
  TrustSourceUrlNotAllowed: 400,
  UnknownTrustSource: 400,
  Unauthenticated: 401,
  MissingScope: 403,
  CsrfTokenInvalid: 403,
  IssuerBindingMismatch: 403,
  TenantSuspended: 403,
  NotFound: 404,
  RouteNotFound: 404,
  MethodNotAllowed: 405,
  RequestTimeout: 408,
  AlreadyExists: 409,
  InvalidState: 409,
  IssuerNotReady: 409,
  IssuerNotActive: 409,
  IssuerNotAuthorised: 409,
  PolicySuspended: 409,
  VerifierCertificateMismatch: 409,
  NotRegistered: 409,
  IdempotencyKeyReused: 409,
  IdempotencyKeyInUse: 409,
  TrustListRefused: 422,
  PayloadTooLarge: 413,
  UriTooLong: 414,
  UnsupportedMediaType: 415,
  ExpectationFailed: 417,
  Throttled: 429,
  HeadersTooLarge: 431,
  InternalError: 500,
  NotImplemented: 501,
  ServiceUnavailable: 503,
  KeyCustodyUnavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  code: string;
  target: string;
  message: string;
}

/** The one error type use-cases throw; transports render it (REST envelope, tRPC shape). */
export class DomainError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "DomainError";
    this.status = ERROR_STATUS[code];
  }
}

export interface ErrorEnvelope {
  error: { code: string; message: string; requestId: string; details?: ErrorDetail[] };
}

export const notFound = (what: string) => new DomainError("NotFound", `${what} was not found.`);
