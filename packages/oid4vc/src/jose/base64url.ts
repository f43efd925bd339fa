const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder("utf-8", { fatal: true });

const BASE64URL_RE = /^[A-Za-z0-9_-]*$/;

/** base64url without padding (RFC 7515 §2) of bytes or of the UTF-8 encoding of a string. */
export function base64urlEncode(input: Uint8Array | string): string {
  const bytes = typeof input === "string" ? textEncoder.encode(input) : input;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
}

/** Strict base64url decode: rejects padding, `+`, `/`, whitespace and impossible lengths. */
export function base64urlDecode(input: string): Uint8Array {
  if (!BASE64URL_RE.test(input) || input.length % 4 === 1) {
    throw new TypeError("invalid base64url");
  }
  return new Uint8Array(Buffer.from(input, "base64url"));
}

/** Decodes base64url to a string, rejecting invalid UTF-8. */
export function base64urlDecodeToString(input: string): string {
  return textDecoder.decode(base64urlDecode(input));
}

/** base64url of the UTF-8 JSON serialisation of a value. */
export function base64urlEncodeJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
}

/** Parses a base64url segment as JSON; throws `TypeError` / `SyntaxError` on malformed input. */
export function base64urlDecodeJson(input: string): unknown {
  return JSON.parse(base64urlDecodeToString(input));
}
