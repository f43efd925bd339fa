import type { UnitOfWork } from "@cred/db";

/**
 * Proofs a wallet may use once (DPoP proofs, RFC 9449 §11.1; client attestation PoPs), recorded by a hash
 * of their key and `jti` until they could no longer pass their age check. Keyed by that hash, which names
 * no tenant: the record is the wallet's, before any tenant is known.
 */
export const proofUseRepository = {
  /** Records a proof as used; false when it was used before (in any process). */
  async spend(db: UnitOfWork, keyHash: string, forgetAfter: Date): Promise<boolean> {
    const { affected } = await db.sql.query(
      `INSERT INTO "DpopProofUse" ("key", "expiresAt") VALUES ($1, $2::timestamp(3)) ON CONFLICT DO NOTHING RETURNING 1`,
      [keyHash, forgetAfter],
    );
    return affected === 1;
  },
};
