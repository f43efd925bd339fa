import { randomBytes } from "node:crypto";

const PREFIX_CHARS = "abcdefghijklmnopqrstuvwxyz234567";
const KEY_PATTERN = /^ak_([a-z2-7]{12})_([A-Za-z0-9_-]{43})$/;

/** `ak_<12-char public prefix>_<43-char secret>`: the prefix finds the row, the secret is only ever hashed. */
export function generateApiKey(): { key: string; prefix: string; secret: string } {
  const bytes = randomBytes(12);
  let prefix = "";
  for (const b of bytes) prefix += PREFIX_CHARS[b & 31];
  const secret = randomBytes(32).toString("base64url");
  return { key: `ak_${prefix}_${secret}`, prefix, secret };
}

export function parseApiKey(key: string): { prefix: string; secret: string } | null {
  const match = KEY_PATTERN.exec(key);
  return match ? { prefix: match[1]!, secret: match[2]! } : null;
}
