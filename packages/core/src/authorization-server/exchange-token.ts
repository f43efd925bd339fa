import type { UnitOfWork } from "@cred/db";
import {
  AUTHORIZATION_CODE_GRANT,
  type FormParams,
  parseTokenRequest,
  type TPreAuthorizedTokenRequest,
  tokenError,
} from "@cred/oid4vc";
import { issuerUrls } from "../issuers";
import type { AppDeps } from "../shared/context";
import { randomToken } from "../shared/ids";
import { hashSecret } from "../shared/secret-box";
import { authenticateWallet, type WalletClientCredentials } from "./client-authentication";
import { exchangeAuthorizationCode } from "./exchange-authorization-code";
import { isRedeemableOffer } from "./offer-redemption";
import { redemptionRepository } from "./redemption-repository";
import { tokenResponse } from "./token-response";
import { txCodeMatches } from "./tx-code";

/** What the token endpoint needs of the process: settings, the master key's box, the caches. */
export type TokenEndpointDeps = Pick<AppDeps, "config" | "secretBox" | "caches">;

/**
 * Token endpoint (OpenID4VCI §6) of either grant, after client authentication by wallet attestation
 * where the wallet sent one or the issuer requires it. With `client.dpopJkt` (the key of a checked DPoP
 * proof) the token is bound to that key (RFC 9449 §5, token_type DPoP).
 */
export async function exchangeToken(
  deps: TokenEndpointDeps,
  db: UnitOfWork,
  issuer: { id: string; tenantId: string; environment: string; walletAttestation: unknown },
  form: FormParams,
  client: WalletClientCredentials = { dpopJkt: null },
) {
  const { config } = deps;
  const request = parseTokenRequest(form);
  const authenticated = await authenticateWallet(db, config, deps.caches, issuer, client, {
    audience: issuerUrls(config, issuer.id).credentialIssuer,
    ...(request.client_id !== undefined ? { clientId: request.client_id } : {}),
  });
  if (request.grant_type === AUTHORIZATION_CODE_GRANT) {
    // An attested client need not repeat its client_id in the body (its attestation's sub names it).
    const clientId = request.client_id ?? authenticated?.clientId;
    return exchangeAuthorizationCode(
      deps,
      db,
      issuer.id,
      { ...request, client_id: clientId },
      { dpopJkt: client.dpopJkt, attestedJkt: authenticated?.instanceJkt ?? null },
    );
  }
  return exchangePreAuthorizedCode(deps, db, issuer.id, request, client.dpopJkt);
}

/**
 * Pre-authorized code grant (OpenID4VCI §6): the code is single use and short-lived;
 * a wrong tx_code counts against a limit, after which the code is invalidated. Redeeming the code
 * extends the transaction to at least the access token's expiry, so a token redeemed just before the
 * offer would have expired can still be used for the whole `expires_in` it announces. With `dpopJkt`
 * (the key of a checked DPoP proof) the token is bound to that key (RFC 9449 §5, token_type DPoP).
 */
async function exchangePreAuthorizedCode(
  deps: TokenEndpointDeps,
  db: UnitOfWork,
  issuerId: string,
  request: TPreAuthorizedTokenRequest,
  dpopJkt: string | null,
) {
  const { config, secretBox } = deps;
  const code = request["pre-authorized_code"];
  const expiresIn = config.issuance.accessTokenLifetimeSeconds;
  // The common case in one statement; authorization_details are checked against the offer first.
  if (request.tx_code === undefined && request.authorization_details === undefined) {
    const accessToken = randomToken(32);
    const now = new Date();
    const redeemed = await redemptionRepository.redeemPreAuthorizedWithoutTxCode(db, deps.caches, {
      issuerId,
      codeHash: hashSecret(code),
      now,
      token: {
        hash: hashSecret(accessToken),
        expiresAt: new Date(now.getTime() + expiresIn * 1000),
        dpopJkt,
      },
    });
    if (redeemed) {
      return tokenResponse(accessToken, expiresIn, redeemed.configurationIdentifier, undefined, dpopJkt);
    }
  }
  const row = await redemptionRepository.transactionByPreAuthorizedCode(db, hashSecret(code));
  if (!row || row.issuerId !== issuerId || !isRedeemableOffer(row)) {
    throw tokenError("invalid_grant", "The pre-authorized code is invalid, expired or already used.");
  }
  // RFC 9396 §5 / OpenID4VCI §6.1: the token is for what was offered, so details may name only that.
  const notOffered = request.authorization_details?.find(
    (detail) => detail.credential_configuration_id !== row.configurationIdentifier,
  );
  if (notOffered) {
    throw tokenError(
      "invalid_authorization_details",
      `${notOffered.credential_configuration_id} is not the credential configuration offered with this code.`,
    );
  }
  const txCode = request.tx_code;
  if (row.txCodeHash) {
    if (txCode === undefined) throw tokenError("invalid_request", "This offer requires a tx_code.");
    if (!txCodeMatches(secretBox, { id: row.id, txCodeHash: row.txCodeHash }, txCode)) {
      // Counted and, at the limit, invalidated in one statement on the row's current count.
      const exhausted = await redemptionRepository.countWrongTxCode(
        db,
        row.id,
        new Date(),
        config.issuance.txCodeMaxAttempts,
      );
      throw tokenError(
        "invalid_grant",
        exhausted ? "Too many wrong tx_code attempts; the code is no longer valid." : "The tx_code is wrong.",
      );
    }
  } else if (txCode !== undefined) {
    throw tokenError("invalid_request", "This offer does not use a tx_code.");
  }

  const accessToken = randomToken(32);
  const now = new Date();
  const redeemed = await redemptionRepository.redeemPreAuthorizedCode(db, {
    transactionId: row.id,
    codeHash: hashSecret(code),
    now,
    maxTxCodeFailures: config.issuance.txCodeMaxAttempts,
    token: { hash: hashSecret(accessToken), expiresAt: new Date(now.getTime() + expiresIn * 1000), dpopJkt },
  });
  if (!redeemed) throw tokenError("invalid_grant", "The pre-authorized code was already used.");
  return tokenResponse(
    accessToken,
    expiresIn,
    row.configurationIdentifier,
    request.authorization_details,
    dpopJkt,
  );
}
