import type { AppDeps } from "@cred/core";
import { assertIssuerTenantActive, loadWalletIssuer, type WalletIssuer } from "@cred/core/wallet";
import { OAuthError } from "@cred/oid4vc";
import type { FastifyReply, FastifyRequest } from "fastify";
import { requestDeps } from "../tracing/request-spans";
import { notFound, walletHandler } from "./oauth-reply";

export type IssuerParams = { issuerId: string };

/**
 * An issuer endpoint's handler. `deps` are the request's (requestDeps): with tracing on, its statements
 * and outbound requests are spans of the request's.
 */
export type IssuerHandler = (
  issuer: WalletIssuer,
  request: FastifyRequest,
  reply: FastifyReply,
  deps: AppDeps,
) => Promise<unknown>;

/**
 * A handler of an endpoint of an active issuer, the one under `:issuerId`. An unknown or draft issuer is
 * 404 in the REST shape for the documents a browser or relying party reads; an OAuth endpoint passes
 * `unknownIssuer`, so a wallet gets the OAuth error it parses there instead.
 */
export function withIssuer(appDeps: AppDeps, handler: IssuerHandler, unknownIssuer?: () => OAuthError) {
  return walletHandler(async (request, reply) => {
    const deps = requestDeps(request, appDeps);
    const { issuerId } = request.params as IssuerParams;
    const issuer = await loadWalletIssuer(deps.database.root, deps.caches, issuerId);
    if (!issuer) {
      if (unknownIssuer) throw unknownIssuer();
      return notFound(reply, "The issuer");
    }
    return handler(issuer, request, reply, deps);
  });
}

/**
 * `withIssuer` for the endpoints that move a wallet towards a new credential: while the issuer's tenant
 * is suspended they answer 403 `access_denied` (docs/api/tenants.md), documents stay served.
 */
export function withIssuingIssuer(
  appDeps: AppDeps,
  handler: IssuerHandler,
  unknownIssuer?: () => OAuthError,
) {
  return withIssuer(
    appDeps,
    async (issuer, request, reply, deps) => {
      await assertIssuerTenantActive(deps.database.root, deps.caches, issuer);
      return handler(issuer, request, reply, deps);
    },
    unknownIssuer,
  );
}

/** The OAuth error of an endpoint under a URL where no active issuer is. */
export const noSuchIssuer = (code: string, status: number) => () =>
  new OAuthError(code, "There is no active credential issuer at this URL.", { status });
