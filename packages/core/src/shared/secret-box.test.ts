import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SecretBox } from "./secret-box";

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
