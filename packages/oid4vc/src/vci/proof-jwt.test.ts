import { beforeAll, describe, expect, it } from "vitest";
import { base64urlEncodeJson } from "../jose/base64url";
import { jwkThumbprintKid } from "../jose/jwk";
import { signEs256Jwt } from "../jose/jws";
import { type Es256KeyPair, generateEs256KeyPair } from "../jose/keys";
import { OAuthError } from "../jose/oauth-error";
import { createProofJwt, type VerifyProofJwtOptions, verifyProofJwt, verifyProofs } from "./proof-jwt";

// OpenID4VCI 1.0 final, Appendix F.1: the example key proof (its signature verifies).
const SPEC_PROOF =
  "eyJ0eXAiOiJvcGVuaWQ0dmNpLXByb29mK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwiY3J2IjoiUC0yNTYiLCJ4IjoiblVXQW9BdjNYWml0aDhFN2kxOU9kYXhPTFlGT3dNLVoyRXVNMDJUaXJUNCIsInkiOiJIc2tIVThCalVpMVU5WHFpN1N3bWo4Z3dBS18weGtjRGpFV183MVNvc0VZIn19.eyJhdWQiOiJodHRwczovL2NyZWRlbnRpYWwtaXNzdWVyLmV4YW1wbGUuY29tIiwiaWF0IjoxNzAxOTYwNDQ0LCJub25jZSI6IkxhclJHU2JtVVBZdFJZTzZCUTR5bjgifQ.-a3EDsxClUB4O3LeDD5DVGEnNMT01FCQW4P6-2-BNBqc_Zxf0Qw4CWayLEpqkAomlkLb9zioZoipdP-jvh1WlA";

const AUD = "https://issuer.example.com/tenant-1";
const NOW = 1_750_000_000;
let holder: Es256KeyPair;
let holder2: Es256KeyPair;

beforeAll(async () => {
  [holder, holder2] = await Promise.all([generateEs256KeyPair(), generateEs256KeyPair()]);
});

function nonceStore(...valid: string[]) {
  const live = new Set(valid);
  const calls: string[] = [];
  return {
    calls,
    consumeNonce: async (n: string) => {
      calls.push(n);
      return live.delete(n);
    },
  };
}

const options = (overrides: Partial<VerifyProofJwtOptions> = {}): VerifyProofJwtOptions => ({
  audience: AUD,
  now: NOW,
  consumeNonce: nonceStore("c-nonce-1").consumeNonce,
  ...overrides,
});

async function oauthError(
  p: Promise<unknown>,
): Promise<{ error: string; description?: string; status?: number }> {
  try {
    await p;
    return { error: "none" };
  } catch (e) {
    if (!(e instanceof OAuthError)) throw e;
    return { error: e.error, description: e.error_description, status: e.status };
  }
}

const proof = (overrides: Partial<Parameters<typeof createProofJwt>[0]> = {}) =>
  createProofJwt({
    privateKey: holder.privateKey,
    publicJwk: holder.publicJwk,
    audience: AUD,
    nonce: "c-nonce-1",
    iat: NOW,
    ...overrides,
  });

describe("verifyProofJwt", () => {
  it("verifies the spec's example proof", async () => {
    const store = nonceStore("LarRGSbmUPYtRYO6BQ4yn8");
    const result = await verifyProofJwt(SPEC_PROOF, {
      audience: "https://credential-issuer.example.com",
      now: 1701960444 + 5,
      consumeNonce: store.consumeNonce,
    });
    expect(result.holderJwk).toEqual({
      kty: "EC",
      crv: "P-256",
      x: "nUWAoAv3XZith8E7i19OdaxOLYFOwM-Z2EuM02TirT4",
      y: "HskHU8BjUi1U9Xqi7Swmj8gwAK_0xkcDjEW_71SosEY",
    });
    expect(result.nonce).toBe("LarRGSbmUPYtRYO6BQ4yn8");
    expect(store.calls).toEqual(["LarRGSbmUPYtRYO6BQ4yn8"]);
  });

  it("returns the holder key and thumbprint and consumes the nonce once", async () => {
    const store = nonceStore("c-nonce-1");
    const result = await verifyProofJwt(await proof(), options({ consumeNonce: store.consumeNonce }));
    const { kid: _k, alg: _a, use: _u, ...bare } = holder.publicJwk;
    expect(result.holderJwk).toEqual(bare);
    expect(result.holderKeyThumbprint).toBe(jwkThumbprintKid(holder.publicJwk));
    expect(result.payload).toEqual({ aud: AUD, iat: NOW, nonce: "c-nonce-1" });
    // replay: the nonce is gone
    expect(
      (await oauthError(verifyProofJwt(await proof(), options({ consumeNonce: store.consumeNonce })))).error,
    ).toBe("invalid_nonce");
  });

  it("accepts an iat with a fraction of a second (a NumericDate) and an application/ typ", async () => {
    const jwt = await signEs256Jwt(
      { typ: "application/openid4vci-proof+jwt", alg: "ES256", jwk: holder.publicJwk },
      { aud: AUD, iat: NOW - 0.25, nonce: "c-nonce-1" },
      holder.privateKey,
    );
    expect((await verifyProofJwt(jwt, options())).payload.iat).toBe(NOW - 0.25);
  });

  it("accepts aud as an array that contains the issuer identifier (RFC 7519 §4.1.3)", async () => {
    for (const aud of [[AUD], ["https://other.example.com", AUD]]) {
      const jwt = await signEs256Jwt(
        { typ: "openid4vci-proof+jwt", alg: "ES256", jwk: holder.publicJwk },
        { aud, iat: NOW, nonce: "c-nonce-1" },
        holder.privateKey,
      );
      const store = nonceStore("c-nonce-1");
      const result = await verifyProofJwt(jwt, options({ consumeNonce: store.consumeNonce }));
      expect(result.payload.aud).toEqual(aud);
    }
  });

  it("accepts kid as did:jwk", async () => {
    const { kty, crv, x, y } = holder.publicJwk;
    const did = `did:jwk:${base64urlEncodeJson({ kty, crv, x, y })}#0`;
    const jwt = await signEs256Jwt(
      { typ: "openid4vci-proof+jwt", alg: "ES256", kid: did },
      { aud: AUD, iat: NOW, nonce: "c-nonce-1" },
      holder.privateKey,
    );
    expect((await verifyProofJwt(jwt, options())).holderJwk).toEqual({ kty, crv, x, y });
  });

  it("rejects a stale or unknown nonce with invalid_nonce, and does not consume it on other errors", async () => {
    expect((await oauthError(verifyProofJwt(await proof({ nonce: "other" }), options()))).error).toBe(
      "invalid_nonce",
    );
    const store = nonceStore("c-nonce-1");
    await oauthError(
      verifyProofJwt(
        await proof({ audience: "https://evil" }),
        options({ consumeNonce: store.consumeNonce }),
      ),
    );
    expect(store.calls).toEqual([]);
  });

  const header = (h: Record<string, unknown>) => h;
  it.each([
    ["wrong typ", header({ typ: "JWT" }), {}, /typ/],
    ["a kid that is not did:jwk", header({ jwk: undefined, kid: "key-1" }), {}, /did:jwk/],
    ["x5c", header({ jwk: undefined, x5c: ["MIIB"] }), {}, /x5c/],
    ["jwk and kid together", header({ kid: "did:jwk:abc" }), {}, /exactly one/],
    ["no key at all", header({ jwk: undefined }), {}, /exactly one/],
    ["a private jwk", header({ jwk: "PRIVATE" }), {}, /private/],
    ["wrong aud", {}, { aud: "https://other.example.com" }, /aud/],
    ["an aud array without the issuer", {}, { aud: ["https://other.example.com"] }, /aud/],
    ["an empty aud array", {}, { aud: [] }, /aud/],
    ["an aud array with a number", {}, { aud: [AUD, 7] }, /aud/],
    ["an empty aud", {}, { aud: "" }, /aud/],
    ["missing iat", {}, { iat: undefined }, /iat/],
    ["iat too old", {}, { iat: NOW - 301 }, /old/],
    ["iat in the future", {}, { iat: NOW + 61 }, /future/],
    ["missing nonce", {}, { nonce: undefined }, /nonce/],
  ])("rejects %s with invalid_proof", async (_label, headerOverride, payloadOverride, description) => {
    const { kty, crv, x, y } = holder.publicJwk;
    const h: Record<string, unknown> = {
      typ: "openid4vci-proof+jwt",
      alg: "ES256",
      jwk: { kty, crv, x, y },
      ...headerOverride,
    };
    if (h.jwk === "PRIVATE") h.jwk = holder.privateJwk;
    for (const k of Object.keys(h)) if (h[k] === undefined) delete h[k];
    const p: Record<string, unknown> = { aud: AUD, iat: NOW, nonce: "c-nonce-1", ...payloadOverride };
    for (const k of Object.keys(p)) if (p[k] === undefined) delete p[k];
    const jwt = await signEs256Jwt(h as { alg: string }, p, holder.privateKey);
    const err = await oauthError(verifyProofJwt(jwt, options()));
    expect(err.error).toBe("invalid_proof");
    expect(err.status).toBe(400);
    expect(err.description).toMatch(description);
  });

  it("rejects a proof signed by another key than the header jwk, non-ES256 algs and garbage", async () => {
    const { kty, crv, x, y } = holder2.publicJwk;
    const lying = await signEs256Jwt(
      { typ: "openid4vci-proof+jwt", alg: "ES256", jwk: { kty, crv, x, y } },
      { aud: AUD, iat: NOW, nonce: "c-nonce-1" },
      holder.privateKey,
    );
    expect((await oauthError(verifyProofJwt(lying, options()))).description).toMatch(/signature/);
    const hs = `${base64urlEncodeJson({ typ: "openid4vci-proof+jwt", alg: "HS256", jwk: { kty, crv, x, y } })}.${base64urlEncodeJson({ aud: AUD })}.sig`;
    expect((await oauthError(verifyProofJwt(hs, options()))).description).toMatch(/ES256/);
    const none = `${base64urlEncodeJson({ typ: "openid4vci-proof+jwt", alg: "none", jwk: { kty, crv, x, y } })}.${base64urlEncodeJson({ aud: AUD })}.`;
    expect((await oauthError(verifyProofJwt(none, options()))).error).toBe("invalid_proof");
    expect((await oauthError(verifyProofJwt("garbage", options()))).error).toBe("invalid_proof");
    const p384 = await signEs256Jwt(
      { typ: "openid4vci-proof+jwt", alg: "ES256", jwk: { kty: "EC", crv: "P-384", x, y } },
      { aud: AUD, iat: NOW, nonce: "c-nonce-1" },
      holder.privateKey,
    );
    expect((await oauthError(verifyProofJwt(p384, options()))).description).toMatch(/P-256/);
  });

  it("checks iss against the client_id when one is given", async () => {
    const jwt = await proof({ iss: "wallet-a" });
    expect((await oauthError(verifyProofJwt(jwt, options({ clientId: "wallet-b" })))).description).toMatch(
      /iss/,
    );
    expect((await verifyProofJwt(jwt, options({ clientId: "wallet-a" }))).payload.iss).toBe("wallet-a");
  });
});

describe("verifyProofs (batch)", () => {
  it("verifies a batch sharing one single-use nonce, consuming it once", async () => {
    const store = nonceStore("c-nonce-1");
    const jwts = [
      await proof(),
      await proof({ privateKey: holder2.privateKey, publicJwk: holder2.publicJwk }),
    ];
    const result = await verifyProofs(jwts, {
      ...options({ consumeNonce: store.consumeNonce }),
      batchSize: 2,
    });
    expect(result.map((r) => r.holderKeyThumbprint)).toEqual([
      jwkThumbprintKid(holder.publicJwk),
      jwkThumbprintKid(holder2.publicJwk),
    ]);
    expect(store.calls).toEqual(["c-nonce-1"]);
  });

  it("rejects oversize batches, repeated keys, empty batches and any bad proof", async () => {
    const a = await proof();
    const b = await proof({ privateKey: holder2.privateKey, publicJwk: holder2.publicJwk });
    expect((await oauthError(verifyProofs([a, b], { ...options(), batchSize: 1 }))).error).toBe(
      "invalid_credential_request",
    );
    expect(
      (await oauthError(verifyProofs([a, await proof({ iat: NOW - 1 })], { ...options(), batchSize: 5 })))
        .description,
    ).toMatch(/distinct key/);
    expect((await oauthError(verifyProofs([], { ...options(), batchSize: 5 }))).error).toBe("invalid_proof");
    const store = nonceStore("c-nonce-1");
    const bad = await proof({
      privateKey: holder2.privateKey,
      publicJwk: holder2.publicJwk,
      audience: "https://x",
    });
    expect(
      (
        await oauthError(
          verifyProofs([a, bad], { ...options({ consumeNonce: store.consumeNonce }), batchSize: 5 }),
        )
      ).error,
    ).toBe("invalid_proof");
    expect(store.calls).toEqual([]);
  });
});
