import type { buildCredentialOffer } from "@cred/oid4vc";
import { BoundedMap } from "../../shared/bounded-map";

type CredentialOffer = ReturnType<typeof buildCredentialOffer>;

/**
 * Offers this process has just created and committed, kept until a wallet first fetches them by
 * reference (normally seconds later), so that fetch needs no read. Handed out once; a second fetch, a
 * fetch on another instance or after a restart reads the database. A cancellation in this process
 * forgets the offer at once; one on another instance can leave it servable here until the wallet's
 * first fetch, and the token endpoint then refuses the code (it always checks the database).
 */
const MAX_ENTRIES = 5_000;
// Set, taken and forgotten together, so both evict the same (oldest) offer.
const byHandleHash = new BoundedMap<
  string,
  { transactionId: string; issuerId: string; expiresAt: number; offer: CredentialOffer }
>(MAX_ENTRIES);
const handleHashByTransaction = new BoundedMap<string, string>(MAX_ENTRIES);

export const createdOffers = {
  remember(
    offerHandleHash: string,
    entry: { transactionId: string; issuerId: string; expiresAt: Date; offer: CredentialOffer },
  ) {
    byHandleHash.set(offerHandleHash, { ...entry, expiresAt: entry.expiresAt.getTime() });
    handleHashByTransaction.set(entry.transactionId, offerHandleHash);
  },
  /** The offer while unexpired and for this issuer; the entry is handed out once. */
  take(offerHandleHash: string, issuerId: string, now = Date.now()): CredentialOffer | null {
    const entry = byHandleHash.take(offerHandleHash);
    if (!entry) return null;
    handleHashByTransaction.delete(entry.transactionId);
    return entry.issuerId === issuerId && entry.expiresAt > now ? entry.offer : null;
  },
  forget(transactionId: string) {
    const handleHash = handleHashByTransaction.take(transactionId);
    if (handleHash !== undefined) byHandleHash.delete(handleHash);
  },
};
