import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SecretBox } from "../shared/secret-box";
import { attestationChallengesOf } from "./client-authentication";
import { dpopNoncesOf, ISSUER_NONCE_LIFETIME_SECONDS } from "./issuer-nonces";

const box = new SecretBox(randomBytes(32));
const NOW = Date.parse("2026-11-23T10:00:00Z");
const strict = { id: "iss_a", requireDpopNonce: true };

describe("DPoP nonces", () => {
  it("exist only for an issuer that requires them", () => {
    expect(dpopNoncesOf(box, { id: "iss_a", requireDpopNonce: false })).toBeUndefined();
    expect(dpopNoncesOf(box, strict)?.issue()).toEqual(expect.any(String));
  });

  it("accepts the issuer's own nonce until it expires", () => {
    let now = NOW;
    const nonces = dpopNoncesOf(box, strict, () => now) as NonNullable<ReturnType<typeof dpopNoncesOf>>;
    const nonce = nonces.issue();
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{30}$/);
    now += ISSUER_NONCE_LIFETIME_SECONDS * 1000 - 1;
    expect(nonces.accepts(nonce)).toBe(true);
    now += 1;
    expect(nonces.accepts(nonce)).toBe(false);
  });

  it("refuses none, another issuer's, another key's, an altered or a malformed nonce", () => {
    const clock = () => NOW;
    const nonces = dpopNoncesOf(box, strict, clock) as NonNullable<ReturnType<typeof dpopNoncesOf>>;
    const nonce = nonces.issue();
    expect(nonces.accepts(undefined)).toBe(false);
    expect(dpopNoncesOf(box, { ...strict, id: "iss_b" }, clock)?.accepts(nonce)).toBe(false);
    expect(dpopNoncesOf(new SecretBox(randomBytes(32)), strict, clock)?.accepts(nonce)).toBe(false);
    const raw = Buffer.from(nonce, "base64url");
    raw[4] = (raw[4] ?? 0) ^ 1; // a later expiry
    expect(nonces.accepts(raw.toString("base64url"))).toBe(false);
    expect(nonces.accepts(nonce.slice(0, -2))).toBe(false);
    expect(nonces.accepts(`${nonce}=`)).toBe(false);
  });
});

describe("attestation challenges", () => {
  const attestation = (requireChallenge: boolean) => ({
    trustedRoots: ["pem"],
    required: false,
    requireChallenge,
  });
  const issuerWith = (id: string, requireChallenge: boolean) => ({
    id,
    walletAttestation: attestation(requireChallenge),
  });

  it("exist only where the issuer's wallet attestation requires them", () => {
    expect(attestationChallengesOf(box, { id: "iss_a", walletAttestation: null })).toBeUndefined();
    expect(attestationChallengesOf(box, issuerWith("iss_a", false))).toBeUndefined();
    expect(attestationChallengesOf(box, issuerWith("iss_a", true))).toBeDefined();
  });

  it("are DPoP nonces of the same issuer, and the other way round", () => {
    const challenges = attestationChallengesOf(box, issuerWith("iss_a", true));
    const nonces = dpopNoncesOf(box, strict);
    expect(nonces?.accepts(challenges?.issue())).toBe(true);
    expect(challenges?.accepts(nonces?.issue())).toBe(true);
    expect(attestationChallengesOf(box, issuerWith("iss_b", true))?.accepts(nonces?.issue())).toBe(false);
  });
});
