import type { FastSql } from "@cred/db";
import {
  AUTHORIZATION_CODE_GRANT,
  type FormParams,
  parseTokenRequest,
  type TPreAuthorizedTokenRequest,
  tokenError,
} from "@cred/oid4vc";
import { authenticateWallet, type WalletClientCredentials } from "../../authorization-server";
import { issuerUrls } from "../../issuers";
import type { Caches } from "../../shared/caches";
import type { CoreConfig } from "../../shared/context";
import { randomToken } from "../../shared/ids";
import { hashSecret, type SecretBox } from "../../shared/secret-box";
import { effectiveStatus } from "../issuance-transaction-dto";
import { txCodeMatches } from "../tx-code";
import { exchangeAuthorizationCode } from "./authorization-code";
import { type IssuanceTransactionRecord, redeemedTransactions } from "./redeemed-transactions";
import { tokenResponse } from "./token-response";

/**
 * The common case in one statement: an offer without tx_code, pending, unexpired, code unused →
 * redeemed and its access token stored. Returns the redeemed row, or null when any of that does not
 * hold (the caller then finds out which, for the right error).
 */
async function redeemWithoutTxCode(
  sql: FastSql,
  issuerId: string,
  codeHash: string,
  token: { hash: string; dpopJkt: string | null },
  now: Date,
  expiresAt: Date,
): Promise<IssuanceTransactionRecord | null> {
  const { rows } = await sql.query<IssuanceTransactionRecord>(
    `WITH redeemed AS (
       UPDATE "IssuanceTransaction"
          SET "codeRedeemedAt" = $1::timestamp(3), "preAuthorizedCodeHash" = NULL, "updatedAt" = $1::timestamp(3),
              "expiresAt" = GREATEST("expiresAt", $5::timestamp(3))
        WHERE "preAuthorizedCodeHash" = $2 AND "issuerId" = $3 AND "codeRedeemedAt" IS NULL
          AND "txCodeHash" IS NULL AND "status" = 'pending' AND "expiresAt" > $1::timestamp(3)
       RETURNING *),
     issued AS (
       INSERT INTO "AccessToken" ("tokenHash", "transactionId", "expiresAt", "dpopJkt")
       SELECT $4, "id", $5::timestamp(3), $6 FROM redeemed
       RETURNING "transactionId")
     SELECT r.* FROM redeemed r JOIN issued i ON i."transactionId" = r."id"`,
    [now, codeHash, issuerId, token.hash, expiresAt, token.dpopJkt],
  );
  return rows[0] ?? null;
}

/**
 * Token endpoint (OpenID4VCI §6) of either grant, after client authentication by wallet attestation
 * where the wallet sent one or the issuer requires it. With `client.dpopJkt` (the key of a checked DPoP
 * proof) the token is bound to that key (RFC 9449 §5, token_type DPoP).
 */
export async function exchangeToken(
  sql: FastSql,
  config: CoreConfig,
  caches: Caches,
  secretBox: SecretBox,
  issuer: { id: string; walletAttestation: unknown },
  form: FormParams,
  client: WalletClientCredentials = { dpopJkt: null },
) {
  const request = parseTokenRequest(form);
  const authenticated = await authenticateWallet(sql, config, caches, issuer, client, {
    audience: issuerUrls(config, issuer.id).credentialIssuer,
    ...(request.client_id !== undefined ? { clientId: request.client_id } : {}),
  });
  if (request.grant_type === AUTHORIZATION_CODE_GRANT) {
    // An attested client need not repeat its client_id in the body (its attestation's sub names it).
    const clientId = request.client_id ?? authenticated?.clientId;
    return exchangeAuthorizationCode(
      sql,
      config,
      issuer.id,
      { ...request, client_id: clientId },
      { dpopJkt: client.dpopJkt, attestedJkt: authenticated?.instanceJkt ?? null },
    );
  }
  return exchangePreAuthorizedCode(sql, config, secretBox, issuer.id, request, client.dpopJkt);
}

/**
 * Pre-authorized code grant (OpenID4VCI §6): the code is single use and short-lived;
 * a wrong tx_code counts against a limit, after which the code is invalidated. Redeeming the code
 * extends the transaction to at least the access token's expiry, so a token redeemed just before the
 * offer would have expired can still be used for the whole `expires_in` it announces. With `dpopJkt`
 * (the key of a checked DPoP proof) the token is bound to that key (RFC 9449 §5, token_type DPoP).
 */
async function exchangePreAuthorizedCode(
  sql: FastSql,
  config: CoreConfig,
  secretBox: SecretBox,
  issuerId: string,
  request: TPreAuthorizedTokenRequest,
  dpopJkt: string | null,
) {
  const code = request["pre-authorized_code"];
  const expiresIn = config.issuance.accessTokenLifetimeSeconds;
  // The common case in one statement; authorization_details are checked against the offer first.
  if (request.tx_code === undefined && request.authorization_details === undefined) {
    const accessToken = randomToken(32);
    const tokenHash = hashSecret(accessToken);
    const now = new Date();
    const tokenExpiresAt = new Date(now.getTime() + expiresIn * 1000);
    const redeemed = await redeemWithoutTxCode(
      sql,
      issuerId,
      hashSecret(code),
      { hash: tokenHash, dpopJkt },
      now,
      tokenExpiresAt,
    );
    if (redeemed) {
      redeemedTransactions.remember(tokenHash, redeemed, tokenExpiresAt, dpopJkt);
      return tokenResponse(accessToken, expiresIn, redeemed.configurationIdentifier, undefined, dpopJkt);
    }
  }
  const { rows } = await sql.query<IssuanceTransactionRecord>(
    `SELECT * FROM "IssuanceTransaction" WHERE "preAuthorizedCodeHash" = $1`,
    [hashSecret(code)],
  );
  const row = rows[0];
  if (!row || row.issuerId !== issuerId || row.codeRedeemedAt || effectiveStatus(row) !== "pending") {
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
      // Counted and, at the limit, invalidated in one statement on the row's current count: guesses sent
      // at once all read the row before any failure is recorded, so the count read above may be stale.
      const { rows: counted } = await sql.query<{ exhausted: boolean }>(
        `UPDATE "IssuanceTransaction" SET "txCodeFailures" = "txCodeFailures" + 1, "updatedAt" = $2::timestamp(3),
                "preAuthorizedCodeHash" = CASE WHEN "txCodeFailures" + 1 >= $3 THEN NULL ELSE "preAuthorizedCodeHash" END
          WHERE "id" = $1 AND "preAuthorizedCodeHash" IS NOT NULL
          RETURNING "preAuthorizedCodeHash" IS NULL AS "exhausted"`,
        [row.id, new Date(), config.issuance.txCodeMaxAttempts],
      );
      const exhausted = counted[0]?.exhausted ?? true;
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
  // One statement: the code is single use under concurrency (only one request can move codeRedeemedAt
  // from null), a right tx_code counts only while the wrong ones recorded so far are under the limit, and
  // the access token exists exactly when the redemption does.
  const { affected } = await sql.query(
    `WITH redeemed AS (
       UPDATE "IssuanceTransaction"
          SET "codeRedeemedAt" = $1::timestamp(3), "preAuthorizedCodeHash" = NULL, "updatedAt" = $1::timestamp(3),
              "expiresAt" = GREATEST("expiresAt", $5::timestamp(3))
        WHERE "id" = $2 AND "codeRedeemedAt" IS NULL AND "preAuthorizedCodeHash" = $3 AND "txCodeFailures" < $6
       RETURNING "id")
     INSERT INTO "AccessToken" ("tokenHash", "transactionId", "expiresAt", "dpopJkt")
     SELECT $4, "id", $5::timestamp(3), $7 FROM redeemed
     RETURNING 1`,
    [
      now,
      row.id,
      hashSecret(code),
      hashSecret(accessToken),
      new Date(now.getTime() + expiresIn * 1000),
      config.issuance.txCodeMaxAttempts,
      dpopJkt,
    ],
  );
  if (affected !== 1) throw tokenError("invalid_grant", "The pre-authorized code was already used.");
  return tokenResponse(
    accessToken,
    expiresIn,
    row.configurationIdentifier,
    request.authorization_details,
    dpopJkt,
  );
}
