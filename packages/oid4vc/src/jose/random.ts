import { randomFillSync } from "node:crypto";

const POOL_BYTES = 8192;
let pool = Buffer.alloc(0);
let offset = 0;

/**
 * Cryptographically random bytes (node:crypto's CSPRNG), drawn from a pool filled 8 KB at a time. Each
 * `crypto.randomBytes` call crosses into C++ and OpenSSL for a few bytes; an issuance flow makes a dozen
 * (ids, tokens, salts, IVs, nonces), which profiled at ~2% of the server's CPU. Every byte is handed out
 * once: callers get a copy of a range no one else gets, and a used-up pool is replaced, never refilled in
 * place. Large requests bypass the pool.
 */
export function pooledRandomBytes(size: number): Buffer {
  if (size > POOL_BYTES / 8) return randomFillSync(Buffer.alloc(size));
  if (offset + size > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafeSlow(POOL_BYTES));
    offset = 0;
  }
  const bytes = Buffer.from(pool.subarray(offset, offset + size));
  offset += size;
  return bytes;
}
