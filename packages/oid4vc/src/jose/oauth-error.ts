/** An authentication scheme a protected resource takes (RFC 6750 §3, RFC 9449 §7.1). */
export type OAuthScheme = "Bearer" | "DPoP";

/**
 * The `WWW-Authenticate` challenge of an error at a protected resource: the schemes it names, in order,
 * and whether it names the error (RFC 6750 §3.1: not when the request carried no credentials at all).
 */
export interface OAuthChallenge {
  schemes: readonly OAuthScheme[];
  withError: boolean;
}

export interface OAuthErrorOptions {
  status?: number;
  cause?: unknown;
  /** Where the error is a protected resource's: the challenge to answer with. */
  challenge?: OAuthChallenge;
  /** A fresh server nonce for the client to retry its DPoP proof with (RFC 9449 §8, §9). */
  dpopNonce?: string;
  /** A fresh client attestation challenge to retry with (attestation-based client auth §8). */
  attestationChallenge?: string;
}

/**
 * An OAuth 2.0 style error (RFC 6749 §5.2, OpenID4VCI §6.3 / §8.3.1.2) that carries its HTTP status.
 *
 * Protocol functions throw it with data, never header text: the HTTP layer renders `toJSON()` as the
 * body, `status` as the status code, and builds the headers (`Cache-Control`, `WWW-Authenticate` from
 * `challenge`, `DPoP-Nonce`, `OAuth-Client-Attestation-Challenge`) from the rest.
 */
export class OAuthError extends Error {
  readonly error: string;
  readonly error_description: string | undefined;
  readonly status: number;
  readonly challenge: OAuthChallenge | undefined;
  readonly dpopNonce: string | undefined;
  readonly attestationChallenge: string | undefined;

  constructor(error: string, errorDescription?: string, options: OAuthErrorOptions = {}) {
    const description =
      errorDescription === undefined ? undefined : sanitizeErrorDescription(errorDescription);
    super(description ? `${error}: ${description}` : error, { cause: options.cause });
    this.name = "OAuthError";
    this.error = sanitizeErrorCode(error);
    this.error_description = description;
    this.status = options.status ?? 400;
    this.challenge = options.challenge;
    this.dpopNonce = options.dpopNonce;
    this.attestationChallenge = options.attestationChallenge;
  }

  /** The wire body: `{ error, error_description? }`. */
  toJSON(): { error: string; error_description?: string } {
    return this.error_description === undefined
      ? { error: this.error }
      : { error: this.error, error_description: this.error_description };
  }
}

export function isOAuthError(value: unknown): value is OAuthError {
  return value instanceof OAuthError;
}

const MAX_DESCRIPTION_LENGTH = 500;

/**
 * RFC 6749 §5.2: `error_description` is limited to %x20-21 / %x23-5B / %x5D-7E, i.e. printable ASCII
 * without `"` and `\`. Anything else is replaced by `?` (control characters and whitespace by a space),
 * and the result is capped so that user input cannot bloat error bodies.
 */
export function sanitizeErrorDescription(input: string): string {
  let out = "";
  for (const ch of input) {
    const code = ch.codePointAt(0)!;
    if (code === 0x22 || code === 0x5c) out += "'";
    else if (code >= 0x20 && code <= 0x7e) out += ch;
    else if (code < 0x20 || code === 0x7f) out += " ";
    else out += "?";
    if (out.length >= MAX_DESCRIPTION_LENGTH) break;
  }
  return out.trim();
}

/** `error` itself is limited to the same set; codes are constants, so this is only a guard. */
function sanitizeErrorCode(input: string): string {
  return sanitizeErrorDescription(input).replace(/ /g, "_") || "server_error";
}
