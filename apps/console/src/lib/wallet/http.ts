/** A protocol step that failed, with what the other side said (OAuth `error` / `error_description`). */
export class WalletError extends Error {
  override readonly name = "WalletError";
  constructor(
    message: string,
    readonly status?: number,
    readonly oauthError?: string,
  ) {
    super(message);
  }
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON when the answer was JSON, else the text. */
  body: unknown;
  text: string;
}

/** `fetch` from this browser (cross-origin to the issuer or verifier: their wallet endpoints allow CORS). */
export async function send(url: string, init: RequestInit = {}): Promise<HttpAnswer> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, credentials: "omit", cache: "no-store" });
  } catch (error) {
    throw new WalletError(`Could not reach ${new URL(url).origin} (${(error as Error).message}).`);
  }
  const text = await response.text();
  let body: unknown = text;
  if ((response.headers.get("content-type") ?? "").includes("json") && text) {
    try {
      body = JSON.parse(text);
    } catch {
      // keep the text
    }
  }
  return { status: response.status, headers: response.headers, body, text };
}

export function asObject(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** The error of a failed answer, in words a person can act on. */
export function failure(step: string, answer: HttpAnswer): WalletError {
  const body = asObject(answer.body);
  const oauthError = typeof body.error === "string" ? body.error : undefined;
  const description =
    typeof body.error_description === "string"
      ? body.error_description
      : typeof asObject(body.error).message === "string"
        ? String(asObject(body.error).message)
        : answer.text.slice(0, 300);
  return new WalletError(
    `${step} failed (HTTP ${answer.status}${oauthError ? `, ${oauthError}` : ""}): ${description}`,
    answer.status,
    oauthError,
  );
}

/** GET a JSON document; a non-2xx answer or a body that is not a JSON object throws. */
export async function getJson(step: string, url: string): Promise<Record<string, unknown>> {
  const answer = await send(url, { headers: { accept: "application/json" } });
  if (answer.status < 200 || answer.status > 299) throw failure(step, answer);
  if (typeof answer.body !== "object" || answer.body === null) {
    throw new WalletError(`${step}: the answer is not JSON.`);
  }
  return asObject(answer.body);
}
