/** The most of a Status List Token fetched from another party. */
export const STATUS_TOKEN_MAX_BYTES = 2 * 1024 * 1024;
const DEFAULT_TTL_SECONDS = 300;
const MAX_TTL_SECONDS = 3600;

/**
 * Until when (epoch ms) a verified Status List Token fetched from another party may be kept: its `ttl`
 * (default 300 s, at most 1 h), never past its `exp`.
 */
export function keepStatusListUntil(
  list: { ttl?: number | undefined; exp?: number | undefined },
  now: number,
) {
  const ttlMs = Math.min(list.ttl ?? DEFAULT_TTL_SECONDS, MAX_TTL_SECONDS) * 1000;
  return Math.min(now + ttlMs, list.exp !== undefined ? list.exp * 1000 : Number.POSITIVE_INFINITY);
}
