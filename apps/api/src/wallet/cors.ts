import type { FastifyInstance } from "fastify";

/**
 * CORS for the wallet endpoints a browser-based wallet calls with `fetch` (metadata, offer, token, PAR,
 * nonce, credential, deferred credential, notification, status lists, type metadata, and the verifier's
 * request_uri and response endpoints), so a wallet running in a web page — the console's sandbox wallet
 * at another origin — can speak the protocols as a phone does. They are public, unauthenticated or
 * token/DPoP-authenticated protocol endpoints that never read cookies, so any origin may call them:
 * `Access-Control-Allow-Origin: *` without credentials (a browser then sends no cookies and reads no
 * `Set-Cookie`). The authorization endpoint is left out: the browser navigates to it, and it sets cookies.
 *
 * Answers: every response of these routes carries `Access-Control-Allow-Origin: *` and exposes
 * `DPoP-Nonce` and `WWW-Authenticate` (the wallet needs them for the nonce retry); a preflight
 * (`OPTIONS` with `Access-Control-Request-Method`) is 204 with the methods of the path and the request
 * headers wallets send (`Authorization`, `DPoP`, `Content-Type`, the OAuth client attestation headers).
 */
export const WALLET_CORS_EXPOSED_HEADERS = "DPoP-Nonce, WWW-Authenticate, OAuth-Client-Attestation-Challenge";
export const WALLET_CORS_ALLOWED_HEADERS =
  "Authorization, DPoP, Content-Type, Accept, OAuth-Client-Attestation, OAuth-Client-Attestation-PoP, traceparent, tracestate";

export async function withWalletCors(scoped: FastifyInstance, register: (scoped: FastifyInstance) => void) {
  const methodsByPath = new Map<string, Set<string>>();
  scoped.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const known = methodsByPath.get(route.url) ?? new Set<string>();
    for (const method of methods) if (method !== "OPTIONS") known.add(method);
    methodsByPath.set(route.url, known);
  });
  scoped.addHook("onSend", async (_request, reply, payload) => {
    reply.header("Access-Control-Allow-Origin", "*");
    reply.header("Access-Control-Expose-Headers", WALLET_CORS_EXPOSED_HEADERS);
    return payload;
  });
  register(scoped);
  // Routes registered by nested plugins (the credential endpoints) exist once those have loaded.
  await scoped.after();
  for (const [url, methods] of [...methodsByPath]) {
    const allow = [...methods].filter((m) => m !== "HEAD").join(", ");
    scoped.options(url, (_request, reply) =>
      reply
        .code(204)
        .headers({
          Allow: `OPTIONS, ${allow}`,
          "Access-Control-Allow-Methods": allow,
          "Access-Control-Allow-Headers": WALLET_CORS_ALLOWED_HEADERS,
          "Access-Control-Max-Age": "600",
        })
        .send(),
    );
  }
}
