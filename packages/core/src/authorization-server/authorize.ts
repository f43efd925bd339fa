import type { UnitOfWork } from "@cred/db";
import { authorizationResponseUrl, PAR_REQUEST_URI_PREFIX } from "@cred/oid4vc";
import { issuerUrls } from "../issuers";
import type { CoreConfig } from "../shared/context";
import { randomToken } from "../shared/ids";
import { hashSecret } from "../shared/secret-box";
import {
  AUTHORIZATION_CODE_LIFETIME_SECONDS,
  authorizationPageOf,
  authorizationPageUrl,
  type BrowserBindingCookie,
  browserBindingCookie,
  INTERACTION_LIFETIME_SECONDS,
  OFFER_UNAVAILABLE,
} from "./authorization-page";
import { authorizationRequestRepository } from "./authorization-request-repository";

/**
 * The outcome of the authorization endpoint: a redirect (to the wallet, or to the issuer's
 * authorization page with the cookie that binds the flow to this browser), or a page for the person.
 */
export type AuthorizationOutcome =
  | { redirectTo: string; cookie?: BrowserBindingCookie }
  | { errorPage: string };

/**
 * Authorization endpoint (RFC 6749 §4.1.1 with RFC 9126 §4): takes only a pushed request, by its
 * `request_uri` (single use, short-lived) and the `client_id` it was pushed with. Without an
 * authorization page, whoever holds the offer's `issuer_state` is the person the offer was made for, as
 * with a pre-authorized code, so no login is asked for: the wallet is sent straight back with a code,
 * its `state` and `iss` (RFC 9207). With one (`authorizationPage`), the person is sent to that page with
 * a one-time `interaction` handle, and the code comes when the integrator completes it
 * (`completeAuthorization`). A request_uri that is unknown, expired, used or pushed by another client
 * gets a page, not a redirect (§4.1.2.1: its redirect URI cannot be trusted); an offer that is no longer
 * pending gets `access_denied` at the wallet's redirect URI.
 */
export async function authorize(
  deps: { config: CoreConfig },
  db: UnitOfWork,
  issuer: { id: string; authorizationPage: unknown },
  query: Record<string, unknown>,
): Promise<AuthorizationOutcome> {
  const { config } = deps;
  const issuerId = issuer.id;
  const page = authorizationPageOf(issuer);
  const clientId = typeof query.client_id === "string" ? query.client_id : undefined;
  const requestUri = typeof query.request_uri === "string" ? query.request_uri : undefined;
  if (!clientId || !requestUri?.startsWith(PAR_REQUEST_URI_PREFIX)) {
    return {
      errorPage:
        "This authorization endpoint takes pushed authorization requests only: open it with the client_id and the request_uri the pushed request returned.",
    };
  }
  // Either a code for the wallet at once, or a handle for the issuer's authorization page.
  const code = page ? null : randomToken(32);
  const interaction = page ? randomToken(32) : null;
  const binding = page ? randomToken(32) : null;
  const now = new Date();
  const codeExpiresAt = code ? new Date(now.getTime() + AUTHORIZATION_CODE_LIFETIME_SECONDS * 1000) : null;
  const interactionExpiresAt = interaction
    ? new Date(now.getTime() + INTERACTION_LIFETIME_SECONDS * 1000)
    : null;
  // One statement: the request_uri is spent, and a code (or handle) recorded only while the offer is
  // still pending.
  const granted = await authorizationRequestRepository.spendRequestUri(db, {
    requestUriHash: hashSecret(requestUri.slice(PAR_REQUEST_URI_PREFIX.length)),
    issuerId,
    clientId,
    now,
    codeHash: code && hashSecret(code),
    codeExpiresAt,
    interactionHash: interaction && hashSecret(interaction),
    interactionExpiresAt,
    browserBindingHash: binding && hashSecret(binding),
    // A handle's row outlives it by an hour, so a late answer is told it expired (409), not unknown.
    keepUntil: interactionExpiresAt ? new Date(interactionExpiresAt.getTime() + 3600_000) : null,
    toPage: page !== null,
  });
  if (!granted) {
    return {
      errorPage:
        "This authorization request is unknown, has expired or was already used. Start again from the wallet.",
    };
  }
  const iss = issuerUrls(config, issuerId).credentialIssuer;
  const state = granted.state ?? undefined;
  if (!granted.offerPending) {
    return {
      redirectTo: authorizationResponseUrl(granted.redirectUri, {
        error: "access_denied",
        error_description: OFFER_UNAVAILABLE,
        state,
        iss,
      }),
    };
  }
  if (page && interaction && binding) {
    return {
      redirectTo: authorizationPageUrl(page, interaction, granted),
      cookie: browserBindingCookie(config, issuerId, interaction, binding),
    };
  }
  return { redirectTo: authorizationResponseUrl(granted.redirectUri, { code: code as string, state, iss }) };
}
