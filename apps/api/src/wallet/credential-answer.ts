import type { AppDeps } from "@cred/core";
import {
  type CredentialAnswer,
  dpopNoncesOf,
  invalidToken,
  type PresentedCredentials,
  type WalletIssuer,
} from "@cred/core/wallet";
import type { FastifyInstance, FastifyReply } from "fastify";
import { assertStorableText } from "../http/storable-text";
import { oauthErrors } from "./oauth-reply";
import { presentedCredentials } from "./presented-credentials";
import { dpopNonceHeader, NO_STORE } from "./response-headers";
import { withIssuingIssuer } from "./wallet-issuer";

/**
 * Encrypted credential requests (OpenID4VCI §10) are compact JWEs, read as text by the credential and
 * deferred credential endpoints only (each registers this in its own scope): every other route keeps
 * refusing application/jwt bodies (415).
 */
function acceptJwtBodies(scoped: FastifyInstance) {
  scoped.addContentTypeParser("application/jwt", { parseAs: "string" }, (_req, body, done) => {
    try {
      assertStorableText(body as string, "body");
    } catch (error) {
      return done(error as Error, undefined);
    }
    done(null, body as string);
  });
}

/** The OAuth error of a protected endpoint under a URL where no active issuer is: the token is not for it. */
export const tokenNotForIssuer = () =>
  invalidToken("The access token was not issued for this credential issuer.");

/**
 * The credential or deferred credential endpoint's answer: 200 with credentials, 202 with a
 * `transaction_id` (§8.3, §9.2), as JSON, or as `application/jwt` where the wallet asked for encryption
 * (§10); `no-store`, and the issuer's fresh `DPoP-Nonce` where it requires nonces (RFC 9449 §9).
 */
function sendCredentialAnswer(
  deps: AppDeps,
  issuer: WalletIssuer,
  reply: FastifyReply,
  answer: CredentialAnswer,
) {
  reply.code(answer.outcome === "deferred" ? 202 : 200).headers({
    ...NO_STORE,
    ...dpopNonceHeader(dpopNoncesOf(deps.secretBox, issuer)),
    ...(answer.encrypted !== undefined ? { "Content-Type": "application/jwt" } : {}),
  });
  return answer.encrypted ?? answer.response;
}

/**
 * Registers the credential or the deferred credential endpoint (they differ in path and use-case only):
 * JSON or an encrypted request in, `issue`'s answer out through `sendCredentialAnswer`.
 */
export function registerCredentialRoute(
  app: FastifyInstance,
  deps: AppDeps,
  path: string,
  issue: (
    deps: AppDeps,
    issuer: WalletIssuer,
    presented: PresentedCredentials,
    sent: { contentType: string | undefined; body: unknown },
  ) => Promise<CredentialAnswer>,
) {
  app.register(async (scoped) => {
    acceptJwtBodies(scoped);
    scoped.post(
      path,
      oauthErrors("invalid_credential_request"),
      withIssuingIssuer(
        deps,
        async (issuer, request, reply, deps) => {
          const answer = await issue(deps, issuer, presentedCredentials(request), {
            contentType: request.headers["content-type"],
            body: request.body,
          });
          return sendCredentialAnswer(deps, issuer, reply, answer);
        },
        tokenNotForIssuer,
      ),
    );
  });
}
