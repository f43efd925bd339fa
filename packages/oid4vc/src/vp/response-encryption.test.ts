import { createPrivateKey, createPublicKey, type JsonWebKey } from "node:crypto";
import { CompactEncrypt, importJWK } from "jose";
import { describe, expect, it } from "vitest";
import { VpError } from "./errors";
import {
  decryptDirectPostJwt,
  encryptDirectPostJwtResponse,
  generateResponseEncryptionKey,
  readJweHeader,
} from "./response-encryption";

// OpenID4VP 1.0 §8.3 example: the encrypted response and the private key that decrypts it.
const SPEC_JWE =
  "eyJhbGciOiJFQ0RILUVTIiwiZW5jIjoiQTEyOEdDTSIsImtpZCI6ImFjIiwiZXBrIjp7Imt" +
  "0eSI6IkVDIiwieCI6Im5ubVZwbTNWM2piaGNhZlFhUkJrU1ZOSGx3Wkh3dC05ck9wSnVmeVlJdWsiLCJ5I" +
  "joicjRmakRxd0p5czlxVU9QLV9iM21SNVNaRy0tQ3dPMm1pYzVWU05UWU45ZyIsImNydiI6IlAtMjU2In1" +
  "9..uAYcHRUSSn2X0WPX.yVzlGSYG4qbg0bq18JcUiDRw56yVnbKR8E7S7YlEtzT00RqE3Pw5oTpUG3hdLN" +
  "4taHZ9gC1kwak8JOnJgQ.1wR024_3-qtAlx1oFIUpQQ";
const SPEC_KEY = {
  kty: "EC",
  kid: "ac",
  use: "enc",
  crv: "P-256",
  alg: "ECDH-ES",
  x: "YO4epjifD-KWeq1sL2tNmm36BhXnkJ0He-WqMYrp9Fk",
  y: "Hekpm0zfK7C-YccH5iBjcIXgf6YdUvNUac_0At55Okk",
  d: "Et-3ce0omz8_TuZ96Df9lp0GAaaDoUnDe6X-CRO7Aww",
};

describe("decryptDirectPostJwt", () => {
  it("decrypts the specification's example response (§8.3)", async () => {
    expect(readJweHeader(SPEC_JWE)).toMatchObject({ alg: "ECDH-ES", enc: "A128GCM", kid: "ac" });
    expect(await decryptDirectPostJwt(SPEC_JWE, SPEC_KEY)).toEqual({
      vp_token: { example_credential_id: ["eyJhb...YMetA"] },
    });
  });

  it.each(["A128GCM", "A256GCM"] as const)("round-trips with enc %s", async (enc) => {
    const key = generateResponseEncryptionKey();
    const payload = { vp_token: { pid: ["a~b~c"] }, state: "s" };
    const jwe = await encryptDirectPostJwtResponse(payload, key.publicJwk, enc);
    expect(readJweHeader(jwe)).toMatchObject({ alg: "ECDH-ES", enc, kid: key.publicJwk.kid });
    expect(await decryptDirectPostJwt(jwe, key.privateJwk)).toEqual(payload);
  });

  it("generates ephemeral P-256 ECDH-ES keys with kid and use enc", () => {
    const a = generateResponseEncryptionKey();
    const b = generateResponseEncryptionKey();
    expect(a.publicJwk).toMatchObject({ kty: "EC", crv: "P-256", alg: "ECDH-ES", use: "enc" });
    expect(a.publicJwk).not.toHaveProperty("d");
    expect(a.privateJwk.d).toBeTypeOf("string");
    expect(a.publicJwk.kid).not.toBe(b.publicJwk.kid);
    expect(a.publicJwk.x).not.toBe(b.publicJwk.x);
  });

  it("writes every key as a full-length JWK whose private and public halves belong together", () => {
    // ~1 in 256 scalars has a leading zero byte; 2 000 keys meet several.
    for (let i = 0; i < 2000; i++) {
      const { publicJwk, privateJwk } = generateResponseEncryptionKey();
      expect(Buffer.from(privateJwk.d!, "base64url")).toHaveLength(32);
      expect(Buffer.from(publicJwk.x!, "base64url")).toHaveLength(32);
      const imported = createPrivateKey({ key: privateJwk as JsonWebKey, format: "jwk" });
      const derived = createPublicKey(imported).export({ format: "jwk" });
      expect([derived.x, derived.y]).toEqual([publicJwk.x, publicJwk.y]);
    }
  });

  it("rejects a kid mismatch, another alg or enc, another key, and garbage", async () => {
    const key = generateResponseEncryptionKey();
    const other = generateResponseEncryptionKey();
    const payload = { vp_token: { pid: ["x~"] } };

    const wrongKid = await encryptDirectPostJwtResponse(payload, { ...key.publicJwk, kid: "other" });
    await expect(decryptDirectPostJwt(wrongKid, key.privateJwk)).rejects.toThrow(/kid/);

    const noKid = await encryptDirectPostJwtResponse(payload, { ...key.publicJwk, kid: undefined });
    await expect(decryptDirectPostJwt(noKid, key.privateJwk)).rejects.toThrow(/kid/);

    const cbc = await encryptDirectPostJwtResponse(payload, key.publicJwk, "A128CBC-HS256");
    await expect(decryptDirectPostJwt(cbc, key.privateJwk)).rejects.toThrow(/enc/);

    const kw = await new CompactEncrypt(new TextEncoder().encode("{}"))
      .setProtectedHeader({ alg: "ECDH-ES+A128KW", enc: "A128GCM", kid: key.publicJwk.kid! })
      .encrypt(await importJWK({ ...key.publicJwk, alg: "ECDH-ES+A128KW" }, "ECDH-ES+A128KW"));
    await expect(decryptDirectPostJwt(kw, key.privateJwk)).rejects.toThrow(/alg/);

    const forOther = await encryptDirectPostJwtResponse(payload, {
      ...other.publicJwk,
      kid: key.publicJwk.kid,
    });
    await expect(decryptDirectPostJwt(forOther, key.privateJwk)).rejects.toThrow(/decrypted/);

    await expect(decryptDirectPostJwt("a.b.c", key.privateJwk)).rejects.toBeInstanceOf(VpError);
    await expect(decryptDirectPostJwt("not a jwe", key.privateJwk)).rejects.toMatchObject({
      oauthError: "invalid_request",
      status: 400,
    });
  });

  it("only accepts the enc values allowed by the caller", async () => {
    const key = generateResponseEncryptionKey();
    const jwe = await encryptDirectPostJwtResponse({ vp_token: {} }, key.publicJwk, "A256GCM");
    await expect(decryptDirectPostJwt(jwe, key.privateJwk, { allowedEnc: ["A128GCM"] })).rejects.toThrow(
      /enc/,
    );
  });

  it("rejects a payload that is not a JSON object", async () => {
    const key = generateResponseEncryptionKey();
    const jwe = await new CompactEncrypt(new TextEncoder().encode("[1]"))
      .setProtectedHeader({ alg: "ECDH-ES", enc: "A128GCM", kid: key.publicJwk.kid! })
      .encrypt(await importJWK(key.publicJwk, "ECDH-ES"));
    await expect(decryptDirectPostJwt(jwe, key.privateJwk)).rejects.toThrow(/object/);
  });
});
