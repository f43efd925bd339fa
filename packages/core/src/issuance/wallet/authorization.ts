import type { FastSql, UnitOfWork } from "@cred/db";
import {
  authorizationError,
  authorizationResponseUrl,
  type FormParams,
  isRegisteredRedirectUri,
  PAR_REQUEST_URI_PREFIX,
  parsePushedAuthorizationRequest,
  type TPushedAuthorizationRequest,
} from "@cred/oid4vc";
import { authenticateWallet, type WalletClientCredentials } from "../../authorization-server";
import { configurationCatalog } from "../../credential-configurations";
import { issuerUrls } from "../../issuers";
import type { Caches } from "../../shared/caches";
import type { CoreConfig } from "../../shared/context";
import { newId, randomToken } from "../../shared/ids";
import { scopeOfRow } from "../../shared/scope-of";
import { hashSecret } from "../../shared/secret-box";
import {
  AUTHORIZATION_CODE_LIFETIME_SECONDS,
  authorizationPageOf,
  authorizationPageUrl,
  type BrowserBindingCookie,
  browserBindingCookie,
  INTERACTION_LIFETIME_SECONDS,
  isRedeemableOffer,
  OFFER_UNAVAILABLE,
  offerRedeemableSql,
} from "./authorization-page";
import type { WalletIssuer } from "./load-wallet-issuer";

/** RFC 9126 §2.2: a request_uri is short-lived; the wallet opens the authorization endpoint at once. */
export const REQUEST_URI_LIFETIME_SECONDS = 60;

/**
 * Pushed authorization request (RFC 9126) of an offer's authorization code flow (OpenID4VCI §5.1.4):
 * the `issuer_state` must be that of a pending offer of this issuer whose grant is not yet redeemed,
 * and the scope, `authorization_details` and `resource` may name only what was offered. The request is
 * bound to a DPoP key when the wallet sent a proof (its key in `client.dpopJkt`, already checked) or
 * `dpop_jkt` (RFC 9449 §10); an issuer that requires DPoP requires one of them. A wallet attestation is
 * checked as client authentication (`authenticateWallet`). An issuer with `allowedRedirectUris` takes
 * only those, compared exactly. Returns the one-time `request_uri`.
 */
export async function pushAuthorizationRequest(
  db: UnitOfWork,
  sql: FastSql,
  config: CoreConfig,
  caches: Caches,
  issuer: WalletIssuer,
  form: FormParams,
  client: WalletClientCredentials,
) {
  const request = parsePushedAuthorizationRequest(form);
  const allowed = issuer.allowedRedirectUris as string[] | null;
  if (allowed && !isRegisteredRedirectUri(allowed, request.redirect_uri)) {
    throw authorizationError(
      "invalid_request",
      "redirect_uri is not one this credential issuer allows; its operator lists the wallets' redirect URIs it accepts.",
    );
  }
  const urls = issuerUrls(config, issuer.id);
  const attested = await authenticateWallet(sql, config, caches, issuer, client, {
    audience: urls.credentialIssuer,
    clientId: request.client_id,
  });
  const dpopProofJkt = client.dpopJkt;
  if (request.resource !== undefined && request.resource !== urls.credentialIssuer) {
    throw authorizationError(
      "invalid_target",
      `resource must be this credential issuer, ${urls.credentialIssuer}.`,
    );
  }
  if (request.dpop_jkt && dpopProofJkt && request.dpop_jkt !== dpopProofJkt) {
    throw authorizationError("invalid_dpop_proof", "dpop_jkt is not the thumbprint of the DPoP proof's key.");
  }
  const dpopJkt = dpopProofJkt ?? request.dpop_jkt ?? null;
  if (issuer.requireDpop && !dpopJkt) {
    throw authorizationError(
      "invalid_dpop_proof",
      "This credential issuer requires DPoP: send a DPoP proof or dpop_jkt with the request.",
    );
  }

  const { transactionId, offered } =
    request.issuer_state !== undefined
      ? await offerOf(sql, issuer, request.issuer_state)
      : await walletInitiated(db, caches, issuer, request);
  // RFC 6749 §3.3: scope values that are not the offered configuration's (e.g. `openid`) are not granted;
  // a scope without it, and no authorization_details to name it, asks for nothing that can be issued.
  if (request.scope && !request.scope.includes(offered) && !request.authorization_details) {
    throw authorizationError(
      "invalid_scope",
      `The scope does not name the credential configuration offered; use ${offered}.`,
    );
  }
  const otherDetail = request.authorization_details?.find((d) => d.credential_configuration_id !== offered);
  if (otherDetail) {
    throw authorizationError(
      "invalid_authorization_details",
      `${otherDetail.credential_configuration_id} is not the credential configuration offered (${offered}).`,
    );
  }

  const handle = randomToken(32);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + REQUEST_URI_LIFETIME_SECONDS * 1000);
  await sql.query(
    `INSERT INTO "AuthorizationRequest" ("id", "issuerId", "transactionId", "requestUriHash", "clientId",
       "redirectUri", "codeChallenge", "state", "authorizationDetails", "scope", "dpopJkt",
       "clientAttestationJkt", "requestUriExpiresAt", "expiresAt", "createdAt", "configurationIdentifier")
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12, $13::timestamp(3), $13::timestamp(3),
       $14::timestamp(3), $15)`,
    [
      newId("par"),
      issuer.id,
      transactionId,
      hashSecret(handle),
      request.client_id,
      request.redirect_uri,
      request.code_challenge,
      request.state ?? null,
      request.authorization_details ? JSON.stringify(request.authorization_details) : null,
      request.scope?.includes(offered) ? offered : null,
      dpopJkt,
      attested?.instanceJkt ?? null,
      expiresAt,
      now,
      transactionId === null ? offered : null,
    ],
  );
  return { request_uri: `${PAR_REQUEST_URI_PREFIX}${handle}`, expires_in: REQUEST_URI_LIFETIME_SECONDS };
}

/** The pending, unredeemed offer of this issuer whose `issuer_state` a request names. */
async function offerOf(sql: FastSql, issuer: WalletIssuer, issuerState: string) {
  const { rows } = await sql.query<{
    id: string;
    issuerId: string;
    status: string;
    expiresAt: Date;
    codeRedeemedAt: Date | null;
    configurationIdentifier: string;
  }>(
    `SELECT "id", "issuerId", "status", "expiresAt", "codeRedeemedAt", "configurationIdentifier"
       FROM "IssuanceTransaction" WHERE "issuerStateHash" = $1`,
    [hashSecret(issuerState)],
  );
  const offer = rows[0];
  if (!offer || offer.issuerId !== issuer.id || !isRedeemableOffer(offer)) {
    throw authorizationError(
      "invalid_request",
      "issuer_state is not that of a pending credential offer of this issuer, or the offer was already redeemed.",
    );
  }
  return { transactionId: offer.id as string | null, offered: offer.configurationIdentifier };
}

/** How many scope values or authorization_details a wallet-initiated request may carry. */
const MAX_ASKED = 10;

/**
 * A wallet-initiated request (no `issuer_state`, OpenID4VCI §5.1; HAIP has issuers support both): taken
 * only by an issuer with an authorization page, where the integrator signs the person in and names the
 * transaction (its subject and claims) when it completes the authorization. It must ask for exactly one
 * configuration this issuer issues, by `authorization_details` or by its `scope`.
 */
async function walletInitiated(
  db: UnitOfWork,
  caches: Caches,
  issuer: WalletIssuer,
  request: TPushedAuthorizationRequest,
) {
  if (!authorizationPageOf(issuer)) {
    throw authorizationError(
      "invalid_request",
      "issuer_state is required: this credential issuer starts the authorization code flow from its offers.",
    );
  }
  const asked = new Set(
    request.authorization_details?.map((d) => d.credential_configuration_id) ?? request.scope ?? [],
  );
  const [code, where] = request.authorization_details
    ? (["invalid_authorization_details", "authorization_details"] as const)
    : (["invalid_scope", "scope"] as const);
  const refuse = () =>
    authorizationError(
      code,
      `Name exactly one credential configuration of this issuer in ${where} (its identifier, which is its scope), among at most ${MAX_ASKED} values.`,
    );
  // An anonymous request: each value asked costs a lookup, so only a few are looked at.
  if (asked.size > MAX_ASKED) throw refuse();
  const issued: string[] = [];
  for (const identifier of asked) {
    const configuration = await configurationCatalog.configuration(
      db,
      caches,
      scopeOfRow(issuer),
      identifier,
    );
    if (configuration && (await configurationCatalog.isGranted(db, caches, issuer.id, configuration.id)))
      issued.push(identifier);
    if (issued.length > 1) break;
  }
  if (issued.length !== 1) throw refuse();
  return { transactionId: null as string | null, offered: issued[0] as string };
}

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
  sql: FastSql,
  config: CoreConfig,
  issuer: { id: string; authorizationPage: unknown },
  query: Record<string, unknown>,
): Promise<AuthorizationOutcome> {
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
  const codeExpiresAt = code && new Date(now.getTime() + AUTHORIZATION_CODE_LIFETIME_SECONDS * 1000);
  const interactionExpiresAt = interaction && new Date(now.getTime() + INTERACTION_LIFETIME_SECONDS * 1000);
  // One statement: the request_uri is spent, and a code (or handle) recorded only while the offer is
  // still pending. The row is updated by its key from a scalar subquery: joining the CTE (UPDATE … FROM)
  // let the planner scan the whole table, a cost that grew with every request pushed (docs/adr/0003).
  const { rows } = await sql.query<{
    redirectUri: string;
    state: string | null;
    transactionId: string | null;
    configurationIdentifier: string | null;
    clientId: string;
    clientAttestationJkt: string | null;
    offerPending: boolean;
  }>(
    // A wallet-initiated request has no offer yet: it goes on only to an authorization page ($11).
    `WITH pending AS (
       SELECT a."id", CASE WHEN a."transactionId" IS NULL THEN $11::boolean
                      ELSE ${offerRedeemableSql('a."transactionId"', "$4")} END AS "offerPending"
         FROM "AuthorizationRequest" a
        WHERE a."requestUriHash" = $1 AND a."issuerId" = $2 AND a."clientId" = $3
          AND a."requestUriUsedAt" IS NULL AND a."requestUriExpiresAt" > $4::timestamp(3))
     UPDATE "AuthorizationRequest" a
        SET "requestUriUsedAt" = $4::timestamp(3),
            "codeHash" = CASE WHEN (SELECT "offerPending" FROM pending) THEN $5 END,
            "codeExpiresAt" = CASE WHEN (SELECT "offerPending" FROM pending) THEN $6::timestamp(3) END,
            "interactionHash" = CASE WHEN (SELECT "offerPending" FROM pending) THEN $7 END,
            "interactionExpiresAt" = CASE WHEN (SELECT "offerPending" FROM pending) THEN $8::timestamp(3) END,
            "browserBindingHash" = CASE WHEN (SELECT "offerPending" FROM pending) THEN $9 END,
            "expiresAt" = GREATEST(a."expiresAt", $6::timestamp(3), $10::timestamp(3))
      WHERE a."id" = (SELECT "id" FROM pending) AND a."requestUriUsedAt" IS NULL
      RETURNING a."redirectUri", a."state", a."transactionId", a."configurationIdentifier", a."clientId",
                a."clientAttestationJkt", (SELECT "offerPending" FROM pending) AS "offerPending"`,
    [
      hashSecret(requestUri.slice(PAR_REQUEST_URI_PREFIX.length)),
      issuerId,
      clientId,
      now,
      code && hashSecret(code),
      codeExpiresAt,
      interaction && hashSecret(interaction),
      interactionExpiresAt,
      binding && hashSecret(binding),
      // A handle's row outlives it by an hour, so a late answer is told it expired (409), not unknown.
      interactionExpiresAt && new Date(interactionExpiresAt.getTime() + 3600_000),
      page !== null,
    ],
  );
  const granted = rows[0];
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
