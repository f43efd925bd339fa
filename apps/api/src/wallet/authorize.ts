import type { AppDeps } from "@cred/core";
import { authorize, type BrowserBindingCookie, returnFromAuthorizationPage } from "@cred/core/wallet";
import type { FastifyInstance, FastifyReply } from "fastify";
import { NO_STORE, setCookieHeader } from "./response-headers";
import { withIssuingIssuer } from "./wallet-issuer";

/**
 * The authorization endpoint (RFC 6749 §4.1.1 with RFC 9126 §4) and the browser's way back from an
 * issuer's authorization page (docs/api/issuance.md, Authorization page). Neither answers HEAD: a link
 * checker or a prefetch must not spend the request_uri (or the result) the person's GET needs.
 */
export function registerAuthorize(app: FastifyInstance, deps: AppDeps) {
  app.get(
    "/issuers/:issuerId/authorize",
    { exposeHeadRoute: false },
    withIssuingIssuer(deps, async (issuer, request, reply, deps) => {
      const outcome = await authorize(
        deps,
        deps.database.root,
        issuer,
        request.query as Record<string, unknown>,
      );
      return answerBrowser(reply, outcome);
    }),
  );

  app.get(
    "/issuers/:issuerId/authorize/return",
    { exposeHeadRoute: false },
    withIssuingIssuer(deps, async (issuer, request, reply, deps) => {
      const outcome = await returnFromAuthorizationPage(
        deps,
        deps.database.root,
        issuer.id,
        (request.query as Record<string, unknown>).result,
        cookiesOf(request.headers.cookie),
      );
      return answerBrowser(reply, outcome);
    }),
  );
}

/**
 * The answer to the person's browser at the authorization endpoint or on its way back: a 302 (setting
 * or clearing the flow's cookie), or a page (400) where a redirect cannot be trusted.
 */
function answerBrowser(
  reply: FastifyReply,
  outcome: { redirectTo: string; cookie?: BrowserBindingCookie } | { errorPage: string },
) {
  reply.headers({ ...NO_STORE, "Referrer-Policy": "no-referrer" });
  if ("redirectTo" in outcome) {
    if (outcome.cookie) reply.header("Set-Cookie", setCookieHeader(outcome.cookie));
    return reply.redirect(outcome.redirectTo, 302);
  }
  return reply.code(400).type("text/html; charset=utf-8").send(authorizationErrorPage(outcome.errorPage));
}

/** The request's cookies by name (RFC 6265 §5.4: `name=value` pairs separated by `;`). */
function cookiesOf(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const pair of header?.split(";") ?? []) {
    const at = pair.indexOf("=");
    if (at > 0) cookies[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return cookies;
}

/** The page a person sees when the authorization endpoint cannot send them back to their wallet. */
function authorizationErrorPage(message: string): string {
  const escaped = message.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Authorization failed</title></head><body><h1>Authorization failed</h1><p>${escaped}</p></body></html>`;
}
