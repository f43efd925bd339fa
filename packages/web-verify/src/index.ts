/**
 * @cred/web-verify: verification on the integrator's web page over the W3C Digital Credentials API
 * (OpenID4VP 1.0 Appendix A). It talks only to the integrator's own backend, which holds the API key:
 *
 * 1. `POST createUrl` `{ dcApi: true | false }` → the backend calls Verifications_Create (with
 *    `dcApi: { origins, signed }` when `dcApi` is true) and answers the session it got back;
 * 2. `navigator.credentials.get({ digital: { requests: [session.dcApiRequest] } })` lets the holder
 *    choose and present a credential from their wallet;
 * 3. `POST submitUrl` `{ id, protocol, data }` → the backend calls VerificationSessions_SubmitDcApiResponse
 *    and answers the decided session (read it server-side with Verifications_Get before acting on it).
 *
 * Where the browser has no Digital Credentials API (`'DigitalCredential' in window` is false), the
 * backend is asked for an ordinary verification and `onFallback` shows its `authorizationRequestUri`
 * (a QR code on another device, a same-device link on this one); the result then arrives as usual.
 */

/** The verification session as the integrator's backend relays it (Verifications_Create's `data`). */
export interface VerificationSession {
  id: string;
  status: string;
  authorizationRequestUri?: string;
  dcApiRequest?: { protocol: string; data: unknown };
  result?: unknown;
  [member: string]: unknown;
}

export interface VerifyOptions {
  /** The backend endpoint that starts a verification (POST, JSON body `{ dcApi: boolean }`). */
  createUrl: string;
  /** The backend endpoint that takes the browser's answer (POST, JSON body `{ id, protocol, data }`). */
  submitUrl: string | ((sessionId: string) => string);
  /** Extra headers for both backend calls (e.g. a CSRF token). */
  headers?: Record<string, string>;
  /** Called when the Digital Credentials API is missing, with the session to show as a QR code or link. */
  onFallback?: (session: VerificationSession) => void | Promise<void>;
  /** Cancels the wallet dialog and the backend calls. */
  signal?: AbortSignal;
  /** Injected for tests; default: the global `fetch`, `navigator.credentials` and `window`. */
  fetch?: typeof fetch;
  credentials?: Pick<CredentialsContainer, "get">;
  window?: object;
}

export type VerifyResult =
  /** The browser's answer was handed to the backend; `session` is what it answered (decided). */
  | { channel: "dc_api"; session: VerificationSession }
  /** No Digital Credentials API: an ordinary verification for the QR code / same-device link. */
  | { channel: "fallback"; session: VerificationSession };

export class WebVerifyError extends Error {
  override readonly name = "WebVerifyError";
  constructor(
    message: string,
    /** `backend` (an endpoint failed), `wallet` (navigator.credentials.get failed or was dismissed), `response` (unexpected answer). */
    readonly kind: "backend" | "wallet" | "response",
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Whether this browser offers the Digital Credentials API (`DigitalCredential` and `navigator.credentials.get`). */
export function isDigitalCredentialsApiAvailable(win: object | undefined = globalThis): boolean {
  if (!win || !("DigitalCredential" in win)) return false;
  const nav = (win as { navigator?: { credentials?: { get?: unknown } } }).navigator;
  return typeof nav?.credentials?.get === "function";
}

async function postJson(
  fetchFn: typeof fetch,
  url: string,
  body: unknown,
  options: Pick<VerifyOptions, "headers" | "signal">,
): Promise<VerificationSession> {
  let response: Response;
  try {
    response = await fetchFn(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...options.headers },
      body: JSON.stringify(body),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (cause) {
    throw new WebVerifyError(`${url} could not be reached`, "backend", undefined, { cause });
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    throw new WebVerifyError(`${url} answered ${response.status}`, "backend", response.status, {
      cause: parsed ?? text,
    });
  }
  // Accept the platform's envelope (`{ data: session }`) as relayed, or the session itself.
  const session = (parsed as { data?: unknown } | undefined)?.data ?? parsed;
  if (
    typeof session !== "object" ||
    session === null ||
    typeof (session as { id?: unknown }).id !== "string"
  ) {
    throw new WebVerifyError(`${url} did not answer a verification session`, "response", response.status);
  }
  return session as VerificationSession;
}

/** The DigitalCredential's `data`: an object in current browsers, a JSON string in early ones. */
function credentialData(data: unknown): unknown {
  if (typeof data !== "string") return data;
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}

/**
 * Runs one verification from the page: over the Digital Credentials API where the browser has it,
 * otherwise through `onFallback` with an ordinary verification's link.
 */
export async function verify(options: VerifyOptions): Promise<VerifyResult> {
  const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  const win = options.window ?? globalThis;
  const available = options.credentials !== undefined || isDigitalCredentialsApiAvailable(win);
  const session = await postJson(fetchFn, options.createUrl, { dcApi: available }, options);

  if (!available || !session.dcApiRequest) {
    await options.onFallback?.(session);
    return { channel: "fallback", session };
  }

  const credentials = options.credentials ?? (win as { navigator: Navigator }).navigator.credentials;
  let credential: unknown;
  try {
    credential = await credentials.get({
      // `digital` is the Digital Credentials API member (not yet in every lib.dom.d.ts).
      digital: { requests: [session.dcApiRequest] },
      ...(options.signal ? { signal: options.signal } : {}),
    } as CredentialRequestOptions);
  } catch (cause) {
    const name = (cause as { name?: string } | null)?.name ?? "Error";
    throw new WebVerifyError(`the wallet did not answer (${name})`, "wallet", undefined, { cause });
  }
  const { protocol, data } = (credential ?? {}) as { protocol?: unknown; data?: unknown };
  if (typeof protocol !== "string" || data === undefined) {
    throw new WebVerifyError("navigator.credentials.get returned no digital credential", "wallet");
  }
  const submitUrl =
    typeof options.submitUrl === "function" ? options.submitUrl(session.id) : options.submitUrl;
  const decided = await postJson(
    fetchFn,
    submitUrl,
    { id: session.id, protocol, data: credentialData(data) },
    options,
  );
  return { channel: "dc_api", session: decided };
}
