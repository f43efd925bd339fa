import type { TSubmitDcApiResponseRequest } from "@cred/contracts/dc-api";

/** A session's `dcApiRequest`: what the page passes to navigator.credentials.get. */
export interface DcApiRequest {
  protocol: string;
  data: Record<string, unknown>;
}

/** Whether this browser offers the Digital Credentials API (`DigitalCredential` and `navigator.credentials.get`). */
export function hasDigitalCredentialsApi(win: object = globalThis): boolean {
  if (!("DigitalCredential" in win)) return false;
  const nav = (win as { navigator?: { credentials?: { get?: unknown } } }).navigator;
  return typeof nav?.credentials?.get === "function";
}

/**
 * Asks a wallet of this browser to answer a Digital Credentials API request (OpenID4VP 1.0 Appendix A),
 * as an integrator's page does: `navigator.credentials.get({ digital: { requests: [request] } })`. The
 * answer, `{ protocol, data }`, is what VerificationSessions_SubmitDcApiResponse takes for the session.
 */
export async function askBrowserWallet(
  request: DcApiRequest,
  credentials: Pick<CredentialsContainer, "get"> = navigator.credentials,
): Promise<Omit<TSubmitDcApiResponseRequest, "id">> {
  let credential: unknown;
  try {
    credential = await credentials.get({
      // `digital` is the Digital Credentials API member (not yet in every lib.dom.d.ts).
      digital: { requests: [request] },
    } as CredentialRequestOptions);
  } catch (error) {
    const name = (error as { name?: string } | null)?.name ?? "Error";
    throw new Error(`The wallet did not answer (${name}: ${(error as Error)?.message ?? ""}).`);
  }
  const { protocol, data } = (credential ?? {}) as { protocol?: unknown; data?: unknown };
  // Early implementations hand `data` over as a JSON string.
  const parsed = typeof data === "string" ? safeJson(data) : data;
  if (typeof protocol !== "string" || !parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new Error("navigator.credentials.get returned no digital credential.");
  }
  return { protocol, data: parsed as Record<string, unknown> };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
