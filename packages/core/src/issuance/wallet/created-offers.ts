import type { buildCredentialOffer } from "@cred/oid4vc";
import { type Caches, cacheSpec } from "../../shared/caches";

type CredentialOffer = ReturnType<typeof buildCredentialOffer>;

interface CreatedOffer {
  transactionId: string;
  issuerId: string;
  expiresAt: number;
  offer: CredentialOffer;
}

/**
 * Offers this process has just created and committed, kept until a wallet first fetches them by
 * reference (normally seconds later), so that fetch needs no read. Handed out once; a second fetch, a
 * fetch on another instance or after a restart reads the database. A cancellation in this process
 * forgets the offer once it commits; one on another instance can leave it servable here until the
 * wallet's first fetch, and the token endpoint then refuses the code (it always checks the database).
 */
const MAX_ENTRIES = 5_000;
// Set, taken and forgotten together, so both evict the same (least recently set) offer.
const CREATED_OFFERS = cacheSpec<CreatedOffer>("issuance.createdOffers", { max: MAX_ENTRIES });
const HANDLE_HASH_BY_TRANSACTION = cacheSpec<string>("issuance.createdOfferHandles", { max: MAX_ENTRIES });

export const createdOffers = {
  remember(
    caches: Caches,
    offerHandleHash: string,
    entry: { transactionId: string; issuerId: string; expiresAt: Date; offer: CredentialOffer },
  ) {
    caches.of(CREATED_OFFERS).set(offerHandleHash, { ...entry, expiresAt: entry.expiresAt.getTime() });
    caches.of(HANDLE_HASH_BY_TRANSACTION).set(entry.transactionId, offerHandleHash);
  },
  /** The offer while unexpired and for this issuer; the entry is handed out once. */
  take(caches: Caches, offerHandleHash: string, issuerId: string, now = Date.now()): CredentialOffer | null {
    const entry = caches.of(CREATED_OFFERS).take(offerHandleHash);
    if (!entry) return null;
    caches.of(HANDLE_HASH_BY_TRANSACTION).delete(entry.transactionId);
    return entry.issuerId === issuerId && entry.expiresAt > now ? entry.offer : null;
  },
  forget(caches: Caches, transactionId: string) {
    const handleHash = caches.of(HANDLE_HASH_BY_TRANSACTION).take(transactionId);
    if (handleHash !== undefined) caches.of(CREATED_OFFERS).delete(handleHash);
  },
};
