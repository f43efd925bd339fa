import type { Db } from "@cred/db";
import { type Caches, cacheSpec } from "../shared/caches";

export type IssuanceTransactionRecord = NonNullable<
  Awaited<ReturnType<Db["issuanceTransaction"]["findUnique"]>>
>;

/** A redeemed transaction as the token endpoint left it, with its access token's expiry and DPoP key. */
export interface RedeemedTransaction {
  row: IssuanceTransactionRecord;
  tokenExpiresAt: number;
  dpopJkt: string | null;
}

/**
 * The transaction row as the token endpoint redeemed it, kept in this process by its access token's hash
 * until that token is used at the credential endpoint (normally milliseconds later), so that request
 * needs no read. It is an optimisation only: the credential statement re-checks the token, its expiry and
 * the pending state in the database, so a cancellation or expiry in between still wins. Misses (another
 * instance, a restart, eviction) read the database, as do further requests with the same token
 * (OpenID4VCI §14.3). Bounded; entries leave when used, evicted oldest first (entries are set and taken,
 * never read in between, so least recently used is oldest), or once their token has expired. Written by
 * the redeeming statements of `redemptionRepository`, after their commit.
 */
export const redeemedTransactions = cacheSpec<RedeemedTransaction>(
  "authorization-server.redeemedTransactions",
  {
    max: 5_000,
  },
);

/** The remembered row and the key its token is bound to, while unexpired; handed out once. */
export function takeRedeemedTransaction(
  caches: Caches,
  accessTokenHash: string,
  now = Date.now(),
): { row: IssuanceTransactionRecord; dpopJkt: string | null } | null {
  const entry = caches.of(redeemedTransactions).take(accessTokenHash);
  return entry && entry.tokenExpiresAt > now ? { row: entry.row, dpopJkt: entry.dpopJkt } : null;
}
