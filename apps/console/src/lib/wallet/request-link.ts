import { failure, send, WalletError } from "./http";
import { randomToken } from "./keys";

const REQUEST_OBJECT_MEDIA_TYPE = "application/oauth-authz-req+jwt";

/** Authorization request parameters that carry JSON when passed as plain URL parameters (OpenID4VP §5.1). */
const JSON_PARAMETERS = new Set(["dcql_query", "client_metadata", "transaction_data", "verifier_info"]);

/** How the link hands over the request. */
export type RequestDelivery = "request_uri" | "request_uri_post" | "request" | "parameters";

/** What an `openid4vp://` link carries: a request object (JWS) to check, or the plain parameters. */
export type LinkedRequest = { clientId: string; delivery: RequestDelivery } & (
  | { jwt: string; walletNonce?: string; parameters?: undefined }
  | { parameters: Record<string, unknown>; jwt?: undefined; walletNonce?: undefined }
);

/**
 * The parameters of a link that passes the whole request by value (OpenID4VP §5, no `request` or
 * `request_uri`), with the JSON-valued ones (`dcql_query`, `client_metadata`, …) parsed.
 */
function plainParameters(link: URL): Record<string, unknown> {
  const parameters: Record<string, unknown> = {};
  for (const [name, value] of link.searchParams) {
    if (!JSON_PARAMETERS.has(name)) {
      parameters[name] = value;
      continue;
    }
    try {
      parameters[name] = JSON.parse(value);
    } catch {
      throw new WalletError(`The request is not valid: ${name} is not JSON.`);
    }
  }
  return parameters;
}

/**
 * Reads an `openid4vp://` link: the request object by value (`request`, RFC 9101 §5.1), or fetched from
 * `request_uri` by GET, or by POST with a fresh `wallet_nonce` where the link says
 * `request_uri_method=post` (OpenID4VP §5.10); or, with neither, the request's own parameters in the link.
 */
export async function readRequestLink(linkText: string): Promise<LinkedRequest> {
  let link: URL;
  try {
    link = new URL(linkText.trim());
  } catch {
    throw new WalletError("That is not a presentation request link (openid4vp://?…).");
  }
  const clientId = link.searchParams.get("client_id");
  if (!clientId) throw new WalletError("The link has no client_id.");
  const byValue = link.searchParams.get("request");
  const requestUri = link.searchParams.get("request_uri");
  if (byValue !== null && requestUri !== null) {
    throw new WalletError("The request is not valid: the link has both request and request_uri.");
  }
  if (byValue !== null) return { clientId, delivery: "request", jwt: byValue.trim() };
  if (requestUri === null) return { clientId, delivery: "parameters", parameters: plainParameters(link) };

  const method = (link.searchParams.get("request_uri_method") ?? "get").toLowerCase();
  if (method !== "get" && method !== "post") throw new WalletError(`Unknown request_uri_method ${method}.`);
  const walletNonce = method === "post" ? randomToken(16) : undefined;
  const answer = walletNonce
    ? await send(requestUri, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: REQUEST_OBJECT_MEDIA_TYPE },
        body: new URLSearchParams({ wallet_nonce: walletNonce }).toString(),
      })
    : await send(requestUri, { headers: { accept: REQUEST_OBJECT_MEDIA_TYPE } });
  if (answer.status !== 200) throw failure("Fetching the request", answer);
  return walletNonce
    ? { clientId, delivery: "request_uri_post", jwt: answer.text.trim(), walletNonce }
    : { clientId, delivery: "request_uri", jwt: answer.text.trim() };
}
