import type { UnitOfWork } from "@cred/db";
import { offerRedeemableSql } from "../authorization-server";
import type { TenantScope } from "../shared/principal";

export interface Interaction {
  id: string;
  issuerId: string;
  transactionId: string | null;
  configurationIdentifier: string | null;
  interactionUsedAt: Date | null;
  interactionExpiresAt: Date | null;
}

/**
 * The authorization requests an integrator answers (Authorizations_Complete), found by the interaction
 * handle's hash within the tenant scope of their issuer.
 */
export const authorizationInteractionRepository = {
  /**
   * The request behind a handle, if its issuer is in the caller's scope and, for an issuer-bound key, is
   * that issuer; else null.
   */
  async findVisible(
    db: UnitOfWork,
    scope: TenantScope,
    issuerId: string | null,
    interactionHash: string,
  ): Promise<Interaction | null> {
    const { rows } = await db.sql.query<Interaction>(
      `SELECT a."id", a."issuerId", a."transactionId", a."configurationIdentifier", a."interactionUsedAt",
            a."interactionExpiresAt"
       FROM "AuthorizationRequest" a JOIN "Issuer" i ON i."id" = a."issuerId"
      WHERE a."interactionHash" = $1 AND i."tenantId" = $2 AND i."environment" = $3
        AND ($4::text IS NULL OR i."id" = $4)`,
      [interactionHash, scope.tenantId, scope.environment, issuerId],
    );
    return rows[0] ?? null;
  },

  /**
   * Whether another request for the transaction holds an approval still to be taken back, or a code not
   * yet used: a second approval would hand a second wallet a code for the same credential. Keyed by a
   * transaction the caller was shown to see.
   */
  async approvedElsewhere(db: UnitOfWork, transactionId: string, requestId: string, now: Date) {
    const { rows } = await db.sql.query(
      `SELECT 1 FROM "AuthorizationRequest"
      WHERE "transactionId" = $1 AND "id" <> $2
        AND (("interactionDecision" = 'approved' AND "interactionReturnedAt" IS NULL
              AND "interactionExpiresAt" > $3::timestamp(3))
          OR ("codeHash" IS NOT NULL AND "codeUsedAt" IS NULL AND "codeExpiresAt" > $3::timestamp(3)))
      LIMIT 1`,
      [transactionId, requestId, now],
    );
    return rows.length > 0;
  },

  /**
   * Spends the interaction handle and records the decision, in one statement, while the handle is unused
   * and unexpired at `now`; `bind` also binds a wallet-initiated request to `transactionId` and closes that
   * transaction's own offer to the code flow (its issuer_state). Null when the handle was no longer open;
   * else whether the offer of the request's transaction can still be redeemed. Keyed by a request
   * `findVisible` gave.
   */
  async complete(
    db: UnitOfWork,
    answer: {
      requestId: string;
      transactionId: string | null;
      now: Date;
      decision: "approved" | "denied";
      resultHash: string;
      bind: boolean;
    },
  ): Promise<{ offerPending: boolean } | null> {
    const { rows } = await db.sql.query<{ offerPending: boolean }>(
      `WITH pending AS (
       SELECT a."id", ${offerRedeemableSql("$2", "$3")} AS "offerPending"
         FROM "AuthorizationRequest" a
        WHERE a."id" = $1 AND a."interactionUsedAt" IS NULL AND a."interactionExpiresAt" > $3::timestamp(3)),
     bound AS (
       UPDATE "IssuanceTransaction" SET "issuerStateHash" = NULL, "updatedAt" = $3::timestamp(3)
        WHERE "id" = $2 AND $6::boolean AND EXISTS (SELECT 1 FROM pending))
     UPDATE "AuthorizationRequest" a
        SET "interactionUsedAt" = $3::timestamp(3), "interactionDecision" = $4, "interactionResultHash" = $5,
            "transactionId" = COALESCE(a."transactionId", $2)
      WHERE a."id" = (SELECT "id" FROM pending) AND a."interactionUsedAt" IS NULL
      RETURNING (SELECT "offerPending" FROM pending) AS "offerPending"`,
      [answer.requestId, answer.transactionId, answer.now, answer.decision, answer.resultHash, answer.bind],
    );
    return rows[0] ?? null;
  },
};
