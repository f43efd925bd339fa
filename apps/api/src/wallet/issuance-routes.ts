import { gzipSync } from "node:zlib";
import type { AppDeps } from "@cred/core";
import {
  attestationChallengesOf,
  authorizationServerMetadata,
  authorize,
  type BrowserBindingCookie,
  credentialIssuerMetadata,
  credentialOfferByHandle,
  credentialTypeMetadata,
  dpopNoncesOf,
  exchangeToken,
  issueCredentials,
  issueDeferredCredentials,
  issueNonce,
  jwtVcIssuerMetadata,
  loadWalletIssuer,
  pushAuthorizationRequest,
  recordNotification,
  returnFromAuthorizationPage,
  signedCredentialIssuerMetadata,
  type WalletIssuer,
} from "@cred/core/issuance/index";
import { issuerUrls, statusListToken } from "@cred/core/issuers/index";
import { BoundedMap } from "@cred/core/shared/bounded-map";
import { OAuthError } from "@cred/oid4vc";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { acceptsGzip, gzipEtag, matchesIfNoneMatch } from "../http/conditional";
import { sendError } from "../http/errors";
import { acceptJwtBodies, sendCredentialAnswer, tokenNotForIssuer } from "./credential-answer";
import { formOf } from "./form";
import { notFound, oauthErrors, walletHandler } from "./oauth-reply";
import { presentedCredentials } from "./presented-credentials";
import { attestationChallengeHeader, dpopNonceHeader, NO_STORE, setCookieHeader } from "./response-headers";
import { walletClient } from "./wallet-client";

type IssuerParams = { issuerId: string };

/** Gzipped status list tokens by entity tag: each token is compressed once, not per fetch. */
const gzippedTokens = new BoundedMap<string, Buffer>(256);

/**
 * OpenID4VCI 1.0 wallet endpoints of every issuer, under its credential issuer identifier
 * `<base>/issuers/<issuerId>`, plus the `.well-known` documents with path insertion.
 */
export function registerIssuanceWalletRoutes(app: FastifyInstance, deps: AppDeps) {
  const db = deps.database.prisma;

  /**
   * An endpoint of an active issuer. An unknown or draft issuer is 404 in the REST shape for the
   * documents a browser or relying party reads; an OAuth endpoint passes `unknownIssuer`, so a wallet
   * gets the OAuth error it parses there instead.
   */
  const withIssuer = (
    handler: (
      issuer: NonNullable<Awaited<ReturnType<typeof loadWalletIssuer>>>,
      request: FastifyRequest,
      reply: FastifyReply,
    ) => Promise<unknown>,
    unknownIssuer?: () => OAuthError,
  ) =>
    walletHandler(async (request, reply) => {
      const { issuerId } = request.params as IssuerParams;
      const issuer = await loadWalletIssuer(db, issuerId);
      if (!issuer) {
        if (unknownIssuer) throw unknownIssuer();
        return notFound(reply, "The issuer");
      }
      return handler(issuer, request, reply);
    });
  const noSuchIssuer = (code: string, status: number) => () =>
    new OAuthError(code, "There is no active credential issuer at this URL.", { status });
  /** The issuer's DPoP nonces where it requires them (`requireDpopNonce`), else undefined. */
  const dpopNonces = (issuer: WalletIssuer) => dpopNoncesOf(deps.secretBox, issuer);
  // OpenID4VCI §12.2.2: JSON, or signed (application/jwt) for a wallet that prefers it, where the issuer
  // has a signing certificate to put in x5c (without one, no wallet could validate the signature).
  const issuerMetadata = withIssuer(async (issuer, request, reply) => {
    reply.header("Vary", "Accept");
    const jwt = prefersJwt(request.headers.accept)
      ? await signedCredentialIssuerMetadata({ ...deps, db }, issuer)
      : null;
    if (jwt === null) return credentialIssuerMetadata(db, deps.config, issuer);
    return reply.type("application/jwt").send(jwt);
  });
  app.get("/.well-known/openid-credential-issuer/issuers/:issuerId", issuerMetadata);
  // Some wallets still append the well-known suffix (pre-1.0 drafts); serve the same document there.
  app.get("/issuers/:issuerId/.well-known/openid-credential-issuer", issuerMetadata);

  const asMetadata = withIssuer(async (issuer) => authorizationServerMetadata(deps.config, issuer));
  app.get("/.well-known/oauth-authorization-server/issuers/:issuerId", asMetadata);
  app.get("/issuers/:issuerId/.well-known/oauth-authorization-server", asMetadata);

  app.get(
    "/.well-known/jwt-vc-issuer/issuers/:issuerId",
    withIssuer(async (issuer) => jwtVcIssuerMetadata(deps.config, issuer)),
  );

  // SD-JWT VC §7.5.1: Type Metadata at the `vct` URL of the configurations whose type is the default one.
  app.get(
    "/issuers/:issuerId/credentials/:identifier",
    withIssuer(async (issuer, request, reply) => {
      const { identifier } = request.params as { identifier: string };
      const metadata = await credentialTypeMetadata(db, deps.config, issuer, identifier);
      if (!metadata) return notFound(reply, "The credential type");
      reply.headers({ "Cache-Control": "max-age=300", "Access-Control-Allow-Origin": "*" });
      return metadata;
    }),
  );

  app.get(
    "/issuers/:issuerId/offers/:handle",
    withIssuer(async (issuer, request, reply) => {
      const { handle } = request.params as { handle: string };
      const offer = await credentialOfferByHandle(deps, deps.database.fast, issuer.id, handle);
      if (!offer) return notFound(reply, "The credential offer");
      reply.headers(NO_STORE);
      return offer;
    }),
  );

  app.post(
    "/issuers/:issuerId/token",
    oauthErrors("invalid_request"),
    withIssuer(
      async (issuer, request, reply) => {
        const form = formOf(request, "token request");
        const url = issuerUrls(deps.config, issuer.id).token;
        const nonces = dpopNonces(issuer);
        const challenges = attestationChallengesOf(deps.secretBox, issuer);
        const client = await walletClient(
          deps,
          request,
          { url, requireDpop: issuer.requireDpop },
          nonces,
          challenges,
        );
        const response = await exchangeToken(
          deps.database.fast,
          deps.config,
          deps.secretBox,
          issuer,
          form,
          client,
        );
        reply.headers({
          ...NO_STORE,
          Pragma: "no-cache",
          ...dpopNonceHeader(nonces),
          ...attestationChallengeHeader(challenges),
        });
        return response;
      },
      noSuchIssuer("invalid_grant", 400),
    ),
  );

  // RFC 9126: the only way into the authorization code flow (require_pushed_authorization_requests).
  app.post(
    "/issuers/:issuerId/par",
    oauthErrors("invalid_request"),
    withIssuer(
      async (issuer, request, reply) => {
        const form = formOf(request, "pushed authorization request");
        const url = issuerUrls(deps.config, issuer.id).pushedAuthorizationRequest;
        // requireDpop is enforced on the request (a proof or dpop_jkt), not on the proof alone.
        const nonces = dpopNonces(issuer);
        const challenges = attestationChallengesOf(deps.secretBox, issuer);
        const client = await walletClient(deps, request, { url, requireDpop: false }, nonces, challenges);
        const response = await pushAuthorizationRequest(
          db,
          deps.database.fast,
          deps.config,
          issuer,
          form,
          client,
        );
        return reply
          .code(201)
          .headers({ ...NO_STORE, ...dpopNonceHeader(nonces), ...attestationChallengeHeader(challenges) })
          .send(response);
      },
      noSuchIssuer("invalid_request", 400),
    ),
  );

  app.get(
    "/issuers/:issuerId/authorize",
    // A HEAD (a link checker, a prefetch) must not spend the request_uri the person's GET needs.
    { exposeHeadRoute: false },
    withIssuer(async (issuer, request, reply) => {
      const outcome = await authorize(
        deps.database.fast,
        deps.config,
        issuer,
        request.query as Record<string, unknown>,
      );
      return answerBrowser(reply, outcome);
    }),
  );

  // The browser's way back from an issuer's authorization page (docs/api/issuance.md, Authorization page).
  app.get(
    "/issuers/:issuerId/authorize/return",
    { exposeHeadRoute: false },
    withIssuer(async (issuer, request, reply) => {
      const outcome = await returnFromAuthorizationPage(
        deps.database.fast,
        deps.config,
        issuer.id,
        (request.query as Record<string, unknown>).result,
        cookiesOf(request.headers.cookie),
      );
      return answerBrowser(reply, outcome);
    }),
  );

  // draft-ietf-oauth-attestation-based-client-auth §8.1: where the issuer requires attestation challenges.
  app.post(
    "/issuers/:issuerId/challenge",
    oauthErrors("invalid_request"),
    withIssuer(
      async (issuer, _request, reply) => {
        const challenges = attestationChallengesOf(deps.secretBox, issuer);
        if (!challenges) return notFound(reply, "The challenge endpoint");
        reply.headers(NO_STORE);
        return { attestation_challenge: challenges.issue() };
      },
      noSuchIssuer("invalid_request", 404),
    ),
  );

  app.post(
    "/issuers/:issuerId/nonce",
    oauthErrors("invalid_request"),
    withIssuer(
      async (issuer, _request, reply) => {
        // OpenID4VCI §7.2: the nonce endpoint may hand out the DPoP nonce for the credential endpoint too.
        reply.headers({ ...NO_STORE, ...dpopNonceHeader(dpopNonces(issuer)) });
        return issueNonce(deps.secretBox, issuer.id, deps.config.issuance.nonceLifetimeSeconds);
      },
      noSuchIssuer("invalid_request", 404),
    ),
  );

  // Encrypted credential requests (OpenID4VCI §10) are compact JWEs, read as text by these two endpoints
  // only: every other route keeps refusing application/jwt bodies (415).
  app.register(async (scoped) => {
    acceptJwtBodies(scoped);
    // The credential and deferred credential endpoints: same protection, same reading of the body.
    const credentialEndpoint = (path: string, issue: typeof issueCredentials) =>
      scoped.post(
        path,
        oauthErrors("invalid_credential_request"),
        withIssuer(async (issuer, request, reply) => {
          const answer = await issue(deps, issuer, presentedCredentials(request), {
            contentType: request.headers["content-type"],
            body: request.body,
          });
          return sendCredentialAnswer(deps, issuer, reply, answer);
        }, tokenNotForIssuer),
      );
    credentialEndpoint("/issuers/:issuerId/credential", issueCredentials);
    credentialEndpoint("/issuers/:issuerId/deferred-credential", issueDeferredCredentials);
  });

  app.post(
    "/issuers/:issuerId/notification",
    oauthErrors("invalid_notification_request"),
    withIssuer(async (issuer, request, reply) => {
      const presented = presentedCredentials(request);
      const url = issuerUrls(deps.config, issuer.id).notification;
      const nonces = dpopNonces(issuer);
      await recordNotification(
        deps.database,
        issuer.id,
        { ...presented, method: "POST", url, requireDpop: issuer.requireDpop, dpopNonces: nonces },
        request.body,
      );
      return reply
        .code(204)
        .headers({ ...NO_STORE, ...dpopNonceHeader(nonces) })
        .send();
    }, tokenNotForIssuer),
  );

  app.get("/issuers/:issuerId/status-lists/:listId", async (request, reply) => {
    const { issuerId, listId } = request.params as IssuerParams & { listId: string };
    reply.header("Access-Control-Allow-Origin", "*");
    // Token Status List §8.4: a server without historical resolution SHOULD answer `time` with 501.
    if ((request.query as Record<string, unknown>).time !== undefined) {
      return sendError(reply, "NotImplemented", "Status lists at a past time are not offered; omit time.");
    }
    const result = await statusListToken(deps, issuerId, listId);
    if (!result) return notFound(reply, "The status list");
    if (wantsOnlyCwt(request.headers.accept)) {
      return reply
        .code(406)
        .type("application/json")
        .send({
          error: {
            code: "NotAcceptable",
            message: "Status lists are served as application/statuslist+jwt only.",
            requestId: request.id,
          },
        });
    }
    // Token Status List: the list SHOULD be served with gzip Content-Encoding (when the client accepts it).
    const gzip = acceptsGzip(request.headers["accept-encoding"]);
    reply.headers({
      "Cache-Control": "max-age=0, must-revalidate",
      ETag: gzip ? gzipEtag(result.etag) : result.etag,
      Vary: "Accept, Accept-Encoding",
    });
    if (matchesIfNoneMatch(request.headers["if-none-match"], [result.etag, gzipEtag(result.etag)])) {
      return reply.code(304).send();
    }
    reply.type("application/statuslist+jwt");
    if (!gzip) return reply.send(result.token);
    let gzipped = gzippedTokens.get(result.etag);
    if (!gzipped) {
      gzipped = gzipSync(result.token, { level: 9 });
      gzippedTokens.set(result.etag, gzipped);
    }
    return reply.header("Content-Encoding", "gzip").send(gzipped);
  });
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

/** `Accept` parsed into media ranges with their weights (RFC 9110 §12.5.1; an unreadable q counts as 1). */
function mediaRanges(accept: string): { type: string; q: number }[] {
  return accept.split(",").map((range) => {
    const [type = "", ...params] = range.split(";").map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    return { type, q: Number.isFinite(weight) ? weight : 1 };
  });
}

/** The weight `Accept` gives a media type: that of the most specific range matching it (RFC 9110 §12.5.1). */
function weightOf(ranges: { type: string; q: number }[], type: string): number {
  for (const range of [type, `${type.split("/")[0]}/*`, "*/*"]) {
    const matching = ranges.filter((r) => r.type === range);
    if (matching.length > 0) return Math.max(...matching.map((r) => r.q));
  }
  return 0;
}

/**
 * Whether `Accept` weighs signed metadata (`application/jwt`) above JSON: JSON, the form every wallet
 * must understand, wins ties (a wildcard weighs for both).
 */
function prefersJwt(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = mediaRanges(accept);
  return weightOf(ranges, "application/jwt") > weightOf(ranges, "application/json");
}

/**
 * Whether `Accept` asks for the CWT form of a status list and not the JWT one (Token Status List §8.1
 * negotiates by media type): that request gets 406. Any other `Accept`, or none, gets the JWT, the one
 * form served (RFC 9110 lets a server disregard an `Accept` it cannot meet).
 */
function wantsOnlyCwt(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = mediaRanges(accept);
  const accepted = ranges.filter((range) => range.q > 0).map((range) => range.type);
  // An explicit q=0 for the JWT form outranks a wildcard that would take it.
  const jwtRefused = ranges.some((r) => r.type === "application/statuslist+jwt" && r.q === 0);
  const jwtOk =
    !jwtRefused && accepted.some((t) => ["application/statuslist+jwt", "application/*", "*/*"].includes(t));
  return !jwtOk && accepted.includes("application/statuslist+cwt");
}
