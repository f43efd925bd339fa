import { constantTimeEqual, hashSecret, isKeyedHash, type SecretBox } from "../shared/secret-box";

/**
 * A transaction's `tx_code` at rest (`IssuanceTransaction.txCodeHash`). The code is short (a 6-digit
 * one has a million values), so a plain hash of it falls to anyone who can read the database in under
 * a second; it is kept as a keyed hash (HMAC-SHA256 under a subkey of the master key, `SecretBox
 * .keyedHash`) of the transaction id and the code, and compared in constant time.
 *
 * Transactions created before keyed hashes hold the unkeyed SHA-256 (`hashSecret`) of the same input,
 * without the `k1.` prefix; they still verify, until they expire (offers live 7 days at most), since
 * the code itself was never stored and so cannot be hashed again.
 */
export const TX_CODE_HASH_PURPOSE = "tx_code";

const input = (transactionId: string, txCode: string) => `${transactionId}:${txCode}`;

export function hashTxCode(secretBox: SecretBox, transactionId: string, txCode: string): string {
  return secretBox.keyedHash(TX_CODE_HASH_PURPOSE, input(transactionId, txCode));
}

/** Whether `txCode` is the code whose hash the transaction stores (keyed, or unkeyed from before). */
export function txCodeMatches(
  secretBox: SecretBox,
  transaction: { id: string; txCodeHash: string },
  txCode: string,
): boolean {
  const stored = transaction.txCodeHash;
  if (isKeyedHash(stored)) {
    return secretBox.keyedHashMatches(TX_CODE_HASH_PURPOSE, input(transaction.id, txCode), stored);
  }
  return constantTimeEqual(hashSecret(input(transaction.id, txCode)), stored);
}
