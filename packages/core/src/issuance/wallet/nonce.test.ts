import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SecretBox } from "../../shared/secret-box";
import { checkNonce, issueNonce } from "./nonce";

const box = new SecretBox(randomBytes(32));
const NOW = new Date("2026-11-22T10:00:00Z");

describe("c_nonce codec", () => {
  it("accepts its own nonce until it expires, and each nonce is different", () => {
    const { c_nonce } = issueNonce(box, "iss_a", 300, NOW);
    expect(c_nonce).toMatch(/^[A-Za-z0-9_-]{51}$/);
    expect(issueNonce(box, "iss_a", 300, NOW).c_nonce).not.toBe(c_nonce);
    const checked = checkNonce(box, "iss_a", c_nonce, new Date(NOW.getTime() + 299_000));
    expect(checked?.expiresAt).toEqual(new Date(NOW.getTime() + 300_000));
    expect(checkNonce(box, "iss_a", c_nonce, new Date(NOW.getTime() + 300_000))).toBeNull();
  });

  it("is good only at the issuer that handed it out", () => {
    const { c_nonce } = issueNonce(box, "iss_a", 300, NOW);
    expect(checkNonce(box, "iss_a", c_nonce, NOW)).not.toBeNull();
    expect(checkNonce(box, "iss_b", c_nonce, NOW)).toBeNull();
    // Nor at an issuer whose id is a prefix of its issuer's.
    expect(checkNonce(box, "iss_", c_nonce, NOW)).toBeNull();
    expect(checkNonce(box, "", c_nonce, NOW)).toBeNull();
  });

  it("rejects a nonce made under another key, altered, truncated or not base64url", () => {
    const { c_nonce } = issueNonce(box, "iss_a", 300, NOW);
    const check = (nonce: string) => checkNonce(box, "iss_a", nonce, NOW);
    expect(checkNonce(new SecretBox(randomBytes(32)), "iss_a", c_nonce, NOW)).toBeNull();
    const raw = Buffer.from(c_nonce, "base64url");
    raw[3] = (raw[3] ?? 0) ^ 1; // a later expiry
    expect(check(raw.toString("base64url"))).toBeNull();
    expect(check(c_nonce.slice(0, -2))).toBeNull();
    expect(check(`${c_nonce.slice(0, -1)}=`)).toBeNull();
    expect(check("not-a-nonce-we-issued")).toBeNull();
  });
});
