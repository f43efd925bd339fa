import { env } from "../../../env";
import { isJsonResponse, unreachableResponse } from "../../../lib/unreachable";

/**
 * Same-origin proxy to the API's tRPC endpoint, so the session cookie is first-party and the console
 * never touches the database. A route handler rather than a next.config rewrite because rewrites are
 * fixed at build time, while API_ORIGIN is read when the server starts.
 */
export const dynamic = "force-dynamic";

// X-Forwarded-For ends with the browser's address (scripts/server.mjs appends it); the API throttles
// sign-ins by it, believing it because this proxy runs on loopback (TRUST_PROXY).
const FORWARDED_REQUEST_HEADERS = [
  "content-type",
  "cookie",
  "x-csrf-token",
  "accept",
  "x-ms-client-request-id",
  "x-forwarded-for",
];
const DROPPED_RESPONSE_HEADERS = new Set([
  "content-encoding",
  "content-length",
  "transfer-encoding",
  "connection",
]);

async function proxy(request: Request): Promise<Response> {
  const incoming = new URL(request.url);
  const target = `${env.apiOrigin}${incoming.pathname}${incoming.search}`;
  const headers = new Headers();
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  let upstream: Response;
  try {
    upstream = await fetch(target, {
      method: request.method,
      headers,
      body: request.method === "GET" || request.method === "HEAD" ? undefined : await request.text(),
      cache: "no-store",
      redirect: "manual",
    });
  } catch {
    return unreachableResponse("ApiUnreachable", `The API at ${env.apiOrigin} is not reachable.`);
  }
  // The API answers /trpc with JSON only; anything else is something in its place (a gateway's HTML
  // error page while it restarts, another service on that port).
  if (!isJsonResponse(upstream)) {
    // Not awaited: Next's fetch can hold the cancel until the other side closes.
    upstream.body?.cancel().catch(() => {});
    return unreachableResponse(
      "ApiUnreachable",
      `The API at ${env.apiOrigin} is not reachable: something else answered (HTTP ${upstream.status}).`,
    );
  }
  const responseHeaders = new Headers();
  upstream.headers.forEach((value, name) => {
    if (!DROPPED_RESPONSE_HEADERS.has(name.toLowerCase()) && name.toLowerCase() !== "set-cookie") {
      responseHeaders.set(name, value);
    }
  });
  for (const cookie of upstream.headers.getSetCookie()) responseHeaders.append("set-cookie", cookie);
  return new Response(upstream.body, { status: upstream.status, headers: responseHeaders });
}

export { proxy as GET, proxy as POST };
