import type { UnitOfWork } from "@cred/db";
import {
  authorizationError,
  type FormParams,
  isRegisteredRedirectUri,
  PAR_REQUEST_URI_PREFIX,
  parsePushedAuthorizationRequest,
  type TPushedAuthorizationRequest,
} from "@cred/oid4vc";
import { configurationCatalog } from "../credential-configurations";
import { issuerUrls } from "../issuers";
import type { Caches } from "../shared/caches";
import type { AppDeps } from "../shared/context";
import { newId, randomToken } from "../shared/ids";
import { scopeOfRow } from "../shared/scope-of";
import { hashSecret } from "../shared/secret-box";
import { authorizationPageOf } from "./authorization-page";
import { authorizationRequestRepository } from "./authorization-request-repository";
import { authenticateWallet, type WalletClientCredentials } from "./client-authentication";
import { isRedeemableOffer } from "./offer-redemption";
import { redemptionRepository } from "./redemption-repository";

/** What the PAR endpoint reads of the issuer (an active one, as the wallet endpoints load it). */
export interface ParIssuer {
  id: string;
  tenantId: string;
  environment: string;
  walletAttestation: unknown;
  allowedRedirectUris: unknown;
  requireDpop: boolean;
  authorizationPage: unknown;
}

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
  deps: Pick<AppDeps, "config" | "caches">,
  db: UnitOfWork,
  issuer: ParIssuer,
  form: FormParams,
  client: WalletClientCredentials,
) {
  const { config } = deps;
  const request = parsePushedAuthorizationRequest(form);
  const allowed = issuer.allowedRedirectUris as string[] | null;
  if (allowed && !isRegisteredRedirectUri(allowed, request.redirect_uri)) {
    throw authorizationError(
      "invalid_request",
      "redirect_uri is not one this credential issuer allows; its operator lists the wallets' redirect URIs it accepts.",
    );
  }
  const urls = issuerUrls(config, issuer.id);
  const attested = await authenticateWallet(db, config, deps.caches, issuer, client, {
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
      ? await offerOf(db, issuer, request.issuer_state)
      : await walletInitiated(db, deps.caches, issuer, request);
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
  await authorizationRequestRepository.insert(db, {
    id: newId("par"),
    issuerId: issuer.id,
    transactionId,
    requestUriHash: hashSecret(handle),
    clientId: request.client_id,
    redirectUri: request.redirect_uri,
    codeChallenge: request.code_challenge,
    state: request.state ?? null,
    authorizationDetails: request.authorization_details ?? null,
    scope: request.scope?.includes(offered) ? offered : null,
    dpopJkt,
    clientAttestationJkt: attested?.instanceJkt ?? null,
    requestUriExpiresAt: expiresAt,
    createdAt: now,
    configurationIdentifier: transactionId === null ? offered : null,
  });
  return { request_uri: `${PAR_REQUEST_URI_PREFIX}${handle}`, expires_in: REQUEST_URI_LIFETIME_SECONDS };
}

/** The pending, unredeemed offer of this issuer whose `issuer_state` a request names. */
async function offerOf(db: UnitOfWork, issuer: ParIssuer, issuerState: string) {
  const offer = await redemptionRepository.offerByIssuerState(db, hashSecret(issuerState));
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
  issuer: ParIssuer,
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
