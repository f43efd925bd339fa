import { createHash } from "node:crypto";
import { pooledRandomBytes } from "./random";

export function b64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
}

export function b64urlDecode(value: string): Buffer {
  return Buffer.from(value, "base64url");
}

export function sha256B64url(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("base64url");
}

/** `bytes` random bytes, base64url without padding. */
export function randomB64url(bytes: number): string {
  return pooledRandomBytes(bytes).toString("base64url");
}

/** Decodes one base64url JSON segment (JWT header/payload, disclosure). Throws on malformed input. */
export function decodeB64urlJson(segment: string): unknown {
  return JSON.parse(b64urlDecode(segment).toString("utf8"));
}
