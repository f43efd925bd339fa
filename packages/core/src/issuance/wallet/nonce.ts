import type { Db } from "@cred/db";
import { randomToken } from "../../shared/ids";
import { hashSecret } from "../../shared/secret-box";

/** A fresh single-use `c_nonce` (OpenID4VCI §7), stored hashed with a short lifetime. */
export async function issueNonce(db: Db, lifetimeSeconds: number): Promise<{ c_nonce: string }> {
  const nonce = randomToken(32);
  await db.walletNonce.create({
    data: {
      valueHash: hashSecret(nonce),
      purpose: "vci",
      expiresAt: new Date(Date.now() + lifetimeSeconds * 1000),
    },
  });
  return { c_nonce: nonce };
}

/** Consumes a nonce: true exactly once, while it is unexpired. */
export async function consumeNonce(db: Db, nonce: string): Promise<boolean> {
  const { count } = await db.walletNonce.deleteMany({
    where: { valueHash: hashSecret(nonce), purpose: "vci", expiresAt: { gt: new Date() } },
  });
  return count === 1;
}
