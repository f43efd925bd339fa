/** Bits per Referenced Token (draft-ietf-oauth-status-list §4.1). */
export type StatusListBits = 1 | 2 | 4 | 8;

/** Registered status values (§7.1). `SUSPENDED` needs `bits >= 2`. */
export const STATUS = { VALID: 0, INVALID: 1, SUSPENDED: 2 } as const;
export type StatusValue = (typeof STATUS)[keyof typeof STATUS];

export function isStatusListBits(value: unknown): value is StatusListBits {
  return value === 1 || value === 2 || value === 4 || value === 8;
}

function assertBits(bits: number): asserts bits is StatusListBits {
  if (!isStatusListBits(bits)) throw new RangeError(`bits must be 1, 2, 4 or 8, got ${bits}`);
}

/** Number of statuses a byte array holds. */
export function statusListCapacity(bytes: Uint8Array, bits: StatusListBits): number {
  return (bytes.length * 8) / bits;
}

/**
 * A zero-filled list (every entry VALID, so unused indices are indistinguishable, §13) for `size`
 * entries. `size` is rounded up to whole bytes.
 */
export function createStatusListBytes(size: number, bits: StatusListBits): Uint8Array {
  assertBits(bits);
  if (!Number.isSafeInteger(size) || size < 1) throw new RangeError("size must be a positive integer");
  return new Uint8Array(Math.ceil((size * bits) / 8));
}

function locate(
  bytes: Uint8Array,
  bits: StatusListBits,
  idx: number,
): { byte: number; shift: number; mask: number } {
  assertBits(bits);
  if (!Number.isSafeInteger(idx) || idx < 0 || idx >= statusListCapacity(bytes, bits)) {
    throw new RangeError(`status index ${idx} is out of range`);
  }
  const perByte = 8 / bits;
  return { byte: Math.floor(idx / perByte), shift: (idx % perByte) * bits, mask: (1 << bits) - 1 };
}

/** Reads the status at `idx` (§4.1: index `i` lives in byte `floor(i*bits/8)`, least significant bits first). */
export function getStatus(bytes: Uint8Array, bits: StatusListBits, idx: number): number {
  const { byte, shift, mask } = locate(bytes, bits, idx);
  return (bytes[byte]! >> shift) & mask;
}

/** Writes `value` at `idx` in place. Out-of-range indices and values that do not fit `bits` throw. */
export function setStatus(bytes: Uint8Array, bits: StatusListBits, idx: number, value: number): void {
  const { byte, shift, mask } = locate(bytes, bits, idx);
  if (!Number.isInteger(value) || value < 0 || value > mask) {
    throw new RangeError(`status value ${value} does not fit in ${bits} bit(s)`);
  }
  bytes[byte] = (bytes[byte]! & ~(mask << shift)) | (value << shift);
}
