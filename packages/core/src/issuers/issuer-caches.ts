import type { CredentialEncryptionKey } from "@cred/oid4vc";
import { type Caches, cacheSpec } from "../shared/caches";
import type { IssuerRow, IssuerSigningKey } from "./issuer-keys";

/**
 * Active issuer rows with their keys on the issuance hot path. Issuer activation is one-way: only an
 * active issuer is cached, and a miss is always read from the database. An active issuer's row still
 * changes (a signing key rotation, settings), so it is kept for 2 s only (how long another process may
 * go on signing with a replaced key), and dropped at once in the process that changes it.
 */
export const activeIssuersCache = cacheSpec<IssuerRow | null>("issuers.activeIssuer", {
  max: 10_000,
  ttlMs: 2_000,
});

/**
 * Decrypted, imported signing keys, one per issuer, replaced when the issuer's current key has another
 * kid (a rotation). Importing costs more than signing, so this matters on the hot path.
 */
export const signingKeysCache = cacheSpec<{ kid: string; key: Promise<IssuerSigningKey> }>(
  "issuers.signingKey",
  { max: 10_000 },
);

/** Opened request encryption keys by issuer, with the ciphertexts they came from (a new key has a new one). */
export const credentialEncryptionKeysCache = cacheSpec<{ ciphers: string; keys: CredentialEncryptionKey[] }>(
  "issuers.credentialEncryptionKeys",
  { max: 256 },
);

/**
 * Once `db`'s writes to the issuer (its row or its keys) are committed, this process forgets what it
 * cached of it: the row, and the opened encryption keys (so private keys leave the heap).
 */
export function forgetIssuerAfterCommit(
  db: { afterCommit(effect: () => void): void },
  caches: Caches,
  issuerId: string,
): void {
  db.afterCommit(() => {
    caches.of(activeIssuersCache).delete(issuerId);
    caches.of(credentialEncryptionKeysCache).delete(issuerId);
  });
}
