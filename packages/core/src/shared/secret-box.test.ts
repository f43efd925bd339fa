import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashSecret, isKeyedHash, SecretBox } from "./secret-box";

const oldKey = randomBytes(32);
const newKey = randomBytes(32);

describe("SecretBox", () => {
  it("binds a sealed value to its associated data", () => {
    const box = new SecretBox(newKey);
    const sealed = box.seal("secret", "issuer-1");
    expect(box.open(sealed, "issuer-1")).toBe("secret");
    expect(() => box.open(sealed, "issuer-2")).toThrow();
  });

  it("opens what a previous master key sealed, and says which key opened it", () => {
    const sealedBefore = new SecretBox(oldKey).seal("secret", "ad");
    const rotating = new SecretBox(newKey, [oldKey]);
    expect(rotating.previousKeyCount).toBe(1);
    expect(rotating.openWithKeyIndex(sealedBefore, "ad")).toEqual({ plaintext: "secret", keyIndex: 1 });
    const sealedNow = rotating.seal("secret", "ad");
    expect(rotating.openWithKeyIndex(sealedNow, "ad").keyIndex).toBe(0);
    // What the rotation seals needs only the new key; the old key alone no longer opens it.
    expect(new SecretBox(newKey).open(sealedNow, "ad")).toBe("secret");
    expect(() => new SecretBox(oldKey).open(sealedNow, "ad")).toThrow();
    expect(() => new SecretBox(newKey).open(sealedBefore, "ad")).toThrow();
  });

  it("accepts MACs of a previous master key, and makes new ones with the current key", () => {
    const data = Buffer.from("nonce body");
    const before = new SecretBox(oldKey).mac("purpose", data).subarray(0, 16);
    const rotating = new SecretBox(newKey, [oldKey]);
    expect(rotating.macMatches("purpose", data, before)).toBe(true);
    expect(new SecretBox(newKey).macMatches("purpose", data, before)).toBe(false);
    expect(rotating.mac("purpose", data)).toEqual(new SecretBox(newKey).mac("purpose", data));
    expect(rotating.macMatches("other purpose", data, before)).toBe(false);
    expect(rotating.macMatches("purpose", data, Buffer.alloc(0))).toBe(false);
  });

  it("ignores the current key listed again as a previous one, and refuses keys of the wrong size", () => {
    expect(new SecretBox(newKey, [newKey]).previousKeyCount).toBe(0);
    expect(() => new SecretBox(newKey, [randomBytes(16)])).toThrow(/32 bytes/);
  });
});

describe("SecretBox.macMatches with a malformed tag", () => {
  it("refuses a tag longer than an HMAC-SHA256 instead of throwing", () => {
    const box = new SecretBox(newKey);
    expect(box.macMatches("purpose", Buffer.from("x"), Buffer.alloc(40))).toBe(false);
  });
});

describe("SecretBox keyed hashes (low-entropy secrets at rest)", () => {
  it("is not the plain SHA-256 of the secret, matches it alone, and differs per purpose and key", () => {
    const box = new SecretBox(newKey);
    const stored = box.keyedHash("tx_code", "itx_1:123456");
    expect(stored).toMatch(/^k1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{43}$/);
    expect(isKeyedHash(stored)).toBe(true);
    expect(isKeyedHash(hashSecret("itx_1:123456"))).toBe(false);
    const sha256 = createHash("sha256").update("itx_1:123456").digest("base64url");
    expect(stored).not.toContain(sha256);
    expect(box.keyedHashMatches("tx_code", "itx_1:123456", stored)).toBe(true);
    expect(box.keyedHashMatches("tx_code", "itx_1:123457", stored)).toBe(false);
    expect(box.keyedHashMatches("other", "itx_1:123456", stored)).toBe(false);
    expect(new SecretBox(oldKey).keyedHashMatches("tx_code", "itx_1:123456", stored)).toBe(false);
    expect(box.keyedHash("tx_code", "itx_1:123456")).toBe(stored); // deterministic: no salt needed
  });

  it("verifies a hash made under a previous master key during a rotation, and names the key", () => {
    const before = new SecretBox(oldKey).keyedHash("tx_code", "itx_1:123456");
    const rotating = new SecretBox(newKey, [oldKey]);
    expect(rotating.keyedHashMatches("tx_code", "itx_1:123456", before)).toBe(true);
    expect(rotating.keyedHashKeyIndex("tx_code", before)).toBe(1);
    const now = rotating.keyedHash("tx_code", "itx_1:123456");
    expect(rotating.keyedHashKeyIndex("tx_code", now)).toBe(0);
    expect(now).toBe(new SecretBox(newKey).keyedHash("tx_code", "itx_1:123456"));
    // Once the old key is gone, what it made no longer verifies (and names no key).
    expect(new SecretBox(newKey).keyedHashMatches("tx_code", "itx_1:123456", before)).toBe(false);
    expect(new SecretBox(newKey).keyedHashKeyIndex("tx_code", before)).toBeNull();
  });

  it("refuses what is not one of its keyed hashes, without throwing", () => {
    const box = new SecretBox(newKey);
    const stored = box.keyedHash("tx_code", "s");
    const [, tag] = stored.split(".");
    for (const odd of [
      "",
      hashSecret("s"),
      "k1",
      `k1.${tag}`,
      `k1.${tag}.`,
      `k1.${tag}.AAAA`,
      `${stored}.x`,
      `k2${stored.slice(2)}`,
      stored.slice(0, -1),
    ])
      expect(box.keyedHashMatches("tx_code", "s", odd), odd).toBe(false);
  });
});
