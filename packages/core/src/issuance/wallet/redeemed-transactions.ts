import type { Db } from "@cred/db";
import { BoundedMap } from "../../shared/bounded-map";

export type IssuanceTransactionRecord = NonNullable<
  Awaited<ReturnType<Db["issuanceTransaction"]["findUnique"]>>
>;

/**
 * The transaction row as the token endpoint redeemed it, kept in this process until its access token is
 * used at the credential endpoint (normally milliseconds later), so that request needs no read. It is an
 * optimisation only: the credential statement re-checks the token, its expiry and the pending state in
 * the database, so a cancellation or expiry in between still wins. Misses (another instance, a restart,
 * eviction) read the database, as do further requests with the same token (OpenID4VCI §14.3). Bounded;
 * entries leave when used, evicted oldest first, or expire.
 */
const MAX_ENTRIES = 5_000;
const entries = new BoundedMap<
  string,
  { row: IssuanceTransactionRecord; tokenExpiresAt: number; dpopJkt: string | null }
>(MAX_ENTRIES);

export const redeemedTransactions = {
  remember(
    accessTokenHash: string,
    row: IssuanceTransactionRecord,
    tokenExpiresAt: Date,
    dpopJkt: string | null,
  ) {
    entries.set(accessTokenHash, { row, tokenExpiresAt: tokenExpiresAt.getTime(), dpopJkt });
  },
  /** The remembered row and the key its token is bound to, while unexpired; handed out once. */
  take(
    accessTokenHash: string,
    now = Date.now(),
  ): { row: IssuanceTransactionRecord; dpopJkt: string | null } | null {
    const entry = entries.take(accessTokenHash);
    return entry && entry.tokenExpiresAt > now ? { row: entry.row, dpopJkt: entry.dpopJkt } : null;
  },
};
