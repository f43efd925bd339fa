/**
 * Whether the offer of a transaction row already read can still be redeemed (`offerRedeemableSql` of
 * the redemption repository, in code): pending and unexpired (a pending transaction past its expiry
 * reads as expired, as the issuance slice's `effectiveStatus` says), and not yet redeemed.
 */
export function isRedeemableOffer(
  row: { status: string; expiresAt: Date; codeRedeemedAt: Date | null },
  now = Date.now(),
): boolean {
  return row.codeRedeemedAt === null && row.status === "pending" && row.expiresAt.getTime() > now;
}
