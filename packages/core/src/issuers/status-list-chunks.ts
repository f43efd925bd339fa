/**
 * How a status list's bits are stored: in rows of 1 KiB (`StatusListChunk`), so a revocation rewrites one
 * small row. A chunk without a row is all zeros.
 */
export const STATUS_CHUNK_BYTES = 1024;

/** Bytes of a list of `size` entries at `bits` each. */
export const statusListBytes = (size: number, bits: number) => Math.ceil((size * bits) / 8);

/** Where entry `idx` lives: its chunk, the byte within the chunk, and the bit shift in that byte (LSB first). */
export function statusEntryLocation(idx: number, bits: number) {
  const bit = idx * bits;
  const byte = Math.floor(bit / 8);
  return { chunk: Math.floor(byte / STATUS_CHUNK_BYTES), offset: byte % STATUS_CHUNK_BYTES, shift: bit % 8 };
}

/** Length of chunk `chunk` (the last one may be shorter). */
export const statusChunkLength = (size: number, bits: number, chunk: number) =>
  Math.min(STATUS_CHUNK_BYTES, statusListBytes(size, bits) - chunk * STATUS_CHUNK_BYTES);

/** The whole list from its chunk rows; chunks without a row stay zero. */
export function assembleStatusList(
  size: number,
  bits: number,
  chunks: { chunk: number; data: Uint8Array }[],
): Uint8Array {
  const bytes = new Uint8Array(statusListBytes(size, bits));
  for (const { chunk, data } of chunks) bytes.set(data, chunk * STATUS_CHUNK_BYTES);
  return bytes;
}
