import type { UnitOfWork } from "@cred/db";
import { authorizationResponseUrl } from "@cred/oid4vc";
import type { TAuthorizationPage } from "../issuers";
import { issuerUrls } from "../issuers";
import type { CoreConfig } from "../shared/context";
import { randomToken } from "../shared/ids";
import { hashSecret } from "../shared/secret-box";
import { authorizationRequestRepository } from "./authorization-request-repository";

/** RFC 6749 §4.1.2: an authorization code is short-lived (a maximum of 10 minutes is recommended). */
export const AUTHORIZATION_CODE_LIFETIME_SECONDS = 60;
/** How long the person has at an issuer's authorization page before its answer is no longer taken. */
export const INTERACTION_LIFETIME_SECONDS = 600;

/** Why a wallet is sent back with `access_denied` when its offer went while the flow ran. */
export const OFFER_UNAVAILABLE =
  "The credential offer is no longer available: it was cancelled, expired or already used.";

/** The issuer's authorization page (`authorizationPage`), or null when wallets get their code at once. */
export function authorizationPageOf(issuer: { authorizationPage: unknown }): TAuthorizationPage | null {
  const page = issuer.authorizationPage as TAuthorizationPage | null;
  return page && typeof page.url === "string" ? page : null;
}

/**
 * Where the authorization endpoint sends the person: the page, with the interaction handle, the offer's
 * transaction (or, for a wallet-initiated request, the configuration asked for), and who asks: the
 * client, the redirect URI the credential's code will go to, and whether a wallet attestation vouched
 * for the client. The page shows these before consent, since anyone can push a request.
 */
export function authorizationPageUrl(
  page: TAuthorizationPage,
  interaction: string,
  request: {
    transactionId: string | null;
    configurationIdentifier: string | null;
    clientId: string;
    redirectUri: string;
    clientAttestationJkt: string | null;
  },
) {
  const url = new URL(page.url);
  url.searchParams.set("interaction", interaction);
  if (request.transactionId) url.searchParams.set("transaction_id", request.transactionId);
  else if (request.configurationIdentifier)
    url.searchParams.set("credential_configuration_id", request.configurationIdentifier);
  url.searchParams.set("client_id", request.clientId);
  url.searchParams.set("redirect_uri", request.redirectUri);
  url.searchParams.set("wallet_attested", request.clientAttestationJkt ? "true" : "false");
  return url.toString();
}

/**
 * The cookie that binds a flow to the browser that opened the authorization endpoint: the answer is
 * taken back only by that browser, so a page link forwarded to someone else (who then signs in) gives
 * whoever forwarded it nothing. One cookie per flow, named after its interaction, scoped to the return URL.
 */
export interface BrowserBindingCookie {
  name: string;
  value: string;
  path: string;
  maxAgeSeconds: number;
}

const cookieNameFor = (interactionHash: string) => `cp_authz_${interactionHash.slice(0, 16)}`;

/** The binding cookie of a flow, by its interaction handle's hash; `value` "" with max age 0 removes it. */
function bindingCookie(
  config: Pick<CoreConfig, "publicBaseUrl">,
  issuerId: string,
  interactionHash: string,
  value: string,
  maxAgeSeconds: number,
): BrowserBindingCookie {
  return {
    name: cookieNameFor(interactionHash),
    value,
    path: new URL(issuerUrls(config, issuerId).authorizationReturn).pathname,
    maxAgeSeconds,
  };
}

export function browserBindingCookie(
  config: Pick<CoreConfig, "publicBaseUrl">,
  issuerId: string,
  interaction: string,
  value: string,
): BrowserBindingCookie {
  return bindingCookie(config, issuerId, hashSecret(interaction), value, INTERACTION_LIFETIME_SECONDS);
}

/** The answer's return URL, which the integrator sends the browser to, and its one-time token. */
export function authorizationReturn(config: Pick<CoreConfig, "publicBaseUrl">, issuerId: string) {
  const token = randomToken(32);
  const url = new URL(issuerUrls(config, issuerId).authorizationReturn);
  url.searchParams.set("result", token);
  return { url: url.toString(), tokenHash: hashSecret(token) };
}

export type ReturnOutcome = { redirectTo: string; cookie: BrowserBindingCookie } | { errorPage: string };

/**
 * The browser's return from the authorization page (`/authorize/return?result=…`): it must carry the
 * answer's one-time result token (which only the integrator had, and handed to the browser that signed
 * in) and the binding cookie of the browser that opened the authorization endpoint. Both together, once,
 * within the interaction's 10 minutes: then an approved answer for an offer still pending gives the
 * wallet its code (made only now, so it is never in an API response), anything else `access_denied`.
 * Otherwise a page, not a redirect.
 */
export async function returnFromAuthorizationPage(
  deps: { config: CoreConfig },
  db: UnitOfWork,
  issuerId: string,
  result: unknown,
  cookies: Record<string, string>,
): Promise<ReturnOutcome> {
  const { config } = deps;
  const refused = {
    errorPage:
      "This sign-in cannot be completed here: open it in the browser you started from, within 10 minutes, and only once. Start again from the wallet.",
  };
  if (typeof result !== "string" || result.length === 0 || result.length > 256) return refused;
  const resultHash = hashSecret(result);
  const interactionHash = await authorizationRequestRepository.interactionOfResult(db, resultHash, issuerId);
  if (!interactionHash) return refused;
  const name = cookieNameFor(interactionHash);
  const binding = cookies[name];
  if (!binding) return refused;
  const code = randomToken(32);
  const now = new Date();
  const codeExpiresAt = new Date(now.getTime() + AUTHORIZATION_CODE_LIFETIME_SECONDS * 1000);
  const returned = await authorizationRequestRepository.returnFromPage(db, {
    resultHash,
    issuerId,
    browserBindingHash: hashSecret(binding),
    now,
    codeHash: hashSecret(code),
    codeExpiresAt,
  });
  if (!returned) return refused;
  const iss = issuerUrls(config, issuerId).credentialIssuer;
  const state = returned.state ?? undefined;
  // The flow is over: the cookie goes.
  const cookie = bindingCookie(config, issuerId, interactionHash, "", 0);
  if (returned.approved && returned.offerPending) {
    return { redirectTo: authorizationResponseUrl(returned.redirectUri, { code, state, iss }), cookie };
  }
  return {
    redirectTo: authorizationResponseUrl(returned.redirectUri, {
      error: "access_denied",
      error_description: returned.approved
        ? OFFER_UNAVAILABLE
        : "The person did not authorize the issuance of this credential.",
      state,
      iss,
    }),
    cookie,
  };
}
