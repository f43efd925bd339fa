import { pooledRandomBytes } from "@cred/oid4vc";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower case

function encodeTime(ms: number): string {
  let out = "";
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

function randomPart(chars: number): string {
  const bytes = pooledRandomBytes(chars);
  let out = "";
  for (let i = 0; i < chars; i++) out += ALPHABET[bytes[i]! & 31];
  return out;
}

let lastTime = -1;
let lastRandom = "";

/** The next string in base32 order (same length); carries like an odometer. */
function increment(value: string): string {
  const chars = value.split("");
  for (let i = chars.length - 1; i >= 0; i--) {
    const next = ALPHABET.indexOf(chars[i]!) + 1;
    if (next < ALPHABET.length) {
      chars[i] = ALPHABET[next]!;
      return chars.join("");
    }
    chars[i] = ALPHABET[0]!;
  }
  return randomPart(value.length); // 80 bits exhausted within one millisecond: practically never
}

/**
 * Prefixed, time-ordered identifiers (`iss_01j…`): lexical order is creation order — strictly, within
 * this process, even for ids made in the same millisecond (the random part then counts up, as in
 * monotonic ULIDs) — so lists page by id alone; the 80-bit random part keeps them unguessable.
 */
export function newId(prefix: string): string {
  const now = Date.now();
  if (now > lastTime) {
    lastTime = now;
    lastRandom = randomPart(16);
  } else {
    lastRandom = increment(lastRandom);
  }
  return `${prefix}_${encodeTime(lastTime)}${lastRandom}`;
}

/** Random URL-safe secret with `bytes` of entropy. */
export function randomToken(bytes = 32): string {
  return pooledRandomBytes(bytes).toString("base64url");
}

/**
 * How far an id's time may lie from its row's own time column: the id is made by the process that
 * writes the row (several processes, several clocks), so an id window of a time range is widened by it.
 */
export const ID_CLOCK_SLACK_MS = 60_000;

/**
 * The smallest id of `prefix` made at `ms` (every id made then or later sorts at or after it): turns a
 * creation-time bound into an id bound, so a newest-first list walks only its window of the id index.
 */
export function idFloorAt(prefix: string, ms: number): string {
  return `${prefix}_${encodeTime(Math.max(0, Math.floor(ms)))}${"0".repeat(16)}`;
}
