import type { UnitOfWork } from "@cred/db";
import type { TAuthorizationDetail } from "@cred/oid4vc";
import { offerRedeemableSql } from "./redemption-repository";

/** A pushed authorization request as the PAR endpoint records it. */
export interface NewAuthorizationRequest {
  id: string;
  issuerId: string;
  /** Null for a wallet-initiated request, until the integrator names the transaction. */
  transactionId: string | null;
  requestUriHash: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  state: string | null;
  authorizationDetails: TAuthorizationDetail[] | null;
  scope: string | null;
  dpopJkt: string | null;
  clientAttestationJkt: string | null;
  requestUriExpiresAt: Date;
  createdAt: Date;
  /** The configuration a wallet-initiated request asks for (null for an offer's request). */
  configurationIdentifier: string | null;
}

/** An authorization request as the token endpoint finds it by its code. */
export interface GrantedCode {
  id: string;
  issuerId: string;
  transactionId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  authorizationDetails: TAuthorizationDetail[] | null;
  scope: string | null;
  dpopJkt: string | null;
  clientAttestationJkt: string | null;
  codeExpiresAt: Date;
  codeUsedAt: Date | null;
}

/**
 * Authorization requests (`AuthorizationRequest`): pushed, opened at the authorization endpoint, answered
 * at the issuer's authorization page, exchanged for a code. They are found by the hash of a one-time
 * handle (request_uri, result, code), with the issuer id where the endpoint knows it; none names a tenant.
 */
export const authorizationRequestRepository = {
  async insert(db: UnitOfWork, request: NewAuthorizationRequest): Promise<void> {
    await db.sql.query(
      `INSERT INTO "AuthorizationRequest" ("id", "issuerId", "transactionId", "requestUriHash", "clientId",
         "redirectUri", "codeChallenge", "state", "authorizationDetails", "scope", "dpopJkt",
         "clientAttestationJkt", "requestUriExpiresAt", "expiresAt", "createdAt", "configurationIdentifier")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12, $13::timestamp(3), $13::timestamp(3),
         $14::timestamp(3), $15)`,
      [
        request.id,
        request.issuerId,
        request.transactionId,
        request.requestUriHash,
        request.clientId,
        request.redirectUri,
        request.codeChallenge,
        request.state,
        request.authorizationDetails ? JSON.stringify(request.authorizationDetails) : null,
        request.scope,
        request.dpopJkt,
        request.clientAttestationJkt,
        request.requestUriExpiresAt,
        request.createdAt,
        request.configurationIdentifier,
      ],
    );
  },

  /**
   * Spends a request_uri of `issuerId` pushed by `clientId` (unused, unexpired), in one statement, and
   * records a code (or the interaction handle and browser binding of an authorization page; hashes) only
   * while the offer is still pending; a wallet-initiated request has no offer yet and goes on only where
   * `toPage`. The row is updated by its key from a scalar subquery: joining the CTE (UPDATE … FROM) let
   * the planner scan the whole table, a cost that grew with every request pushed (docs/adr/0003).
   * Returns the request, or null when the request_uri is unknown, expired, used or another client's.
   */
  async spendRequestUri(
    db: UnitOfWork,
    spend: {
      requestUriHash: string;
      issuerId: string;
      clientId: string;
      now: Date;
      codeHash: string | null;
      codeExpiresAt: Date | null;
      interactionHash: string | null;
      interactionExpiresAt: Date | null;
      browserBindingHash: string | null;
      /** How long the row is kept at least (a late answer is then told it expired, not unknown). */
      keepUntil: Date | null;
      toPage: boolean;
    },
  ) {
    const { rows } = await db.sql.query<{
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
        spend.requestUriHash,
        spend.issuerId,
        spend.clientId,
        spend.now,
        spend.codeHash,
        spend.codeExpiresAt,
        spend.interactionHash,
        spend.interactionExpiresAt,
        spend.browserBindingHash,
        spend.keepUntil,
        spend.toPage,
      ],
    );
    return rows[0] ?? null;
  },

  /** The interaction handle's hash of the request of `issuerId` whose page answer has this result hash. */
  async interactionOfResult(db: UnitOfWork, resultHash: string, issuerId: string): Promise<string | null> {
    const { rows } = await db.sql.query<{ interactionHash: string }>(
      `SELECT "interactionHash" FROM "AuthorizationRequest" WHERE "interactionResultHash" = $1 AND "issuerId" = $2`,
      [resultHash, issuerId],
    );
    return rows[0]?.interactionHash ?? null;
  },

  /**
   * Takes the browser's return from the authorization page, in one statement: once, within the
   * interaction's lifetime, with the result's and the browser binding's hashes; records a code (hash)
   * only for an approved answer whose offer is still pending. Returns the request's redirect URI, state,
   * and whether it was approved and its offer pending; null when the return is refused.
   */
  async returnFromPage(
    db: UnitOfWork,
    back: {
      resultHash: string;
      issuerId: string;
      browserBindingHash: string;
      now: Date;
      codeHash: string;
      codeExpiresAt: Date;
    },
  ) {
    const { rows } = await db.sql.query<{
      redirectUri: string;
      state: string | null;
      approved: boolean;
      offerPending: boolean;
    }>(
      `WITH pending AS (
         SELECT a."id", a."interactionDecision" = 'approved' AS "approved",
                ${offerRedeemableSql('a."transactionId"', "$4")} AS "offerPending"
           FROM "AuthorizationRequest" a
          WHERE a."interactionResultHash" = $1 AND a."issuerId" = $2 AND a."browserBindingHash" = $3
            AND a."interactionReturnedAt" IS NULL AND a."interactionExpiresAt" > $4::timestamp(3))
       UPDATE "AuthorizationRequest" a
          SET "interactionReturnedAt" = $4::timestamp(3),
              "codeHash" = CASE WHEN (SELECT "approved" AND "offerPending" FROM pending) THEN $5 END,
              "codeExpiresAt" = CASE WHEN (SELECT "approved" AND "offerPending" FROM pending) THEN $6::timestamp(3) END,
              "expiresAt" = GREATEST(a."expiresAt", $6::timestamp(3))
        WHERE a."id" = (SELECT "id" FROM pending) AND a."interactionReturnedAt" IS NULL
        RETURNING a."redirectUri", a."state", (SELECT "approved" FROM pending) AS "approved",
                  (SELECT "offerPending" FROM pending) AS "offerPending"`,
      [back.resultHash, back.issuerId, back.browserBindingHash, back.now, back.codeHash, back.codeExpiresAt],
    );
    return rows[0] ?? null;
  },

  /** The request that holds this authorization code (by its hash), used or not. */
  async grantedCode(db: UnitOfWork, codeHash: string): Promise<GrantedCode | null> {
    const { rows } = await db.sql.query<GrantedCode>(
      `SELECT "id", "issuerId", "transactionId", "clientId", "redirectUri", "codeChallenge",
              "authorizationDetails", "scope", "dpopJkt", "clientAttestationJkt", "codeExpiresAt",
              "codeUsedAt"
         FROM "AuthorizationRequest" WHERE "codeHash" = $1`,
      [codeHash],
    );
    return rows[0] ?? null;
  },
};
