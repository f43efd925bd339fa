/**
 * A fresh `Idempotency-Key` (a random UUID). Make one per logical operation and send the same one on
 * every retry of it: the API then replays the first result (`Idempotent-Replayed: true`) for 24 hours
 * instead of doing the work twice; the same key with another body is refused (409 `IdempotencyKeyReused`).
 */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/** The header for `key` (a new one when omitted), to spread into a request's `headers`. */
export function idempotencyHeader(key: string = newIdempotencyKey()): { "Idempotency-Key": string } {
  return { "Idempotency-Key": key };
}
