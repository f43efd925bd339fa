import { deflateSync, inflateSync, constants as zlibConstants } from "node:zlib";
import { base64urlDecode, base64urlEncode } from "../jose/base64url";

/** Default cap on a decoded list (16 MiB = 134M one-bit entries), a guard against zlib bombs. */
export const DEFAULT_MAX_STATUS_LIST_BYTES = 16 * 1024 * 1024;

/**
 * `lst` of the JSON Status List (§4.2): base64url(ZLIB/DEFLATE(bytes)), at the highest compression level
 * unless told otherwise. Any level decodes the same; the highest is RECOMMENDED, and costs: on a 32 KB
 * list with a few thousand entries set, level 9 took ~15 ms here, level 6 ~1 ms for an 11% larger `lst`.
 */
export function encodeStatusList(
  bytes: Uint8Array,
  level: number = zlibConstants.Z_BEST_COMPRESSION,
): string {
  return base64urlEncode(new Uint8Array(deflateSync(bytes, { level })));
}

/** Inverse of `encodeStatusList`; throws on invalid base64url, invalid ZLIB data or oversize output. */
export function decodeStatusList(lst: string, options: { maxBytes?: number } = {}): Uint8Array {
  const compressed = base64urlDecode(lst);
  const out = inflateSync(compressed, { maxOutputLength: options.maxBytes ?? DEFAULT_MAX_STATUS_LIST_BYTES });
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
