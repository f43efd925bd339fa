import type { FastSql } from "@cred/db";
import { randomToken } from "../../shared/ids";
import { hashSecret } from "../../shared/secret-box";

/** A fresh single-use `c_nonce` (OpenID4VCI §7), stored hashed with a short lifetime. */
export async function issueNonce(sql: FastSql, lifetimeSeconds: number): Promise<{ c_nonce: string }> {
  const nonce = randomToken(32);
  await sql.query(
    `INSERT INTO "WalletNonce" ("valueHash", "purpose", "expiresAt") VALUES ($1, 'vci', $2::timestamp(3))`,
    [hashSecret(nonce), new Date(Date.now() + lifetimeSeconds * 1000)],
  );
  return { c_nonce: nonce };
}

/** Consumes a nonce: true exactly once, while it is unexpired. */
export async function consumeNonce(sql: FastSql, nonce: string): Promise<boolean> {
  const { affected } = await sql.query(
    `DELETE FROM "WalletNonce" WHERE "valueHash" = $1 AND "purpose" = 'vci' AND "expiresAt" > $2::timestamp(3) RETURNING 1`,
    [hashSecret(nonce), new Date()],
  );
  return affected === 1;
}
