import { createPrivateKey, generateKeyPairSync, type JsonWebKey } from "node:crypto";
import {
  calculateJwkThumbprint,
  compactVerify,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
} from "jose";
import { describe, expect, it } from "vitest";
import { base64urlDecode, base64urlDecodeJson, base64urlEncode, base64urlEncodeJson } from "./base64url";
import { hasPrivateKeyMaterial, jwkThumbprintKid } from "./jwk";
import { decodeJwtUnverified, isCryptoKey, signEs256Jwt, typIs, verifyEs256Signature } from "./jws";
import {
  es256PublicKeyObject,
  generateEs256KeyPair,
  importEs256PrivateKey,
  importEs256PublicKey,
} from "./keys";
import { OAuthError, sanitizeErrorDescription } from "./oauth-error";
import { toEpochSeconds } from "./time";

describe("OAuthError", () => {
  it("carries error, sanitised description, status and the data its headers are built from", () => {
    const e = new OAuthError("invalid_proof", 'bad "proof" \\ with\nnewline and ü', {
      status: 400,
      dpopNonce: "n-1",
    });
    expect(e.error).toBe("invalid_proof");
    expect(e.error_description).toBe("bad 'proof' ' with newline and ?");
    expect(e.status).toBe(400);
    expect(e.dpopNonce).toBe("n-1");
    expect(e.challenge).toBeUndefined();
    expect(e.toJSON()).toEqual({
      error: "invalid_proof",
      error_description: "bad 'proof' ' with newline and ?",
    });
    expect(e).toBeInstanceOf(Error);
  });

  it("defaults to 400 and omits a missing description", () => {
    const e = new OAuthError("invalid_request");
    expect(e.status).toBe(400);
    expect(e.toJSON()).toEqual({ error: "invalid_request" });
  });

  it("keeps only RFC 6749 NQSCHAR characters and caps the length", () => {
    const all = Array.from({ length: 0x80 }, (_, i) => String.fromCharCode(i)).join("");
    const out = sanitizeErrorDescription(all);
    for (const ch of out) {
      const c = ch.charCodeAt(0);
      expect(c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c).toBe(true);
    }
    expect(sanitizeErrorDescription("x".repeat(5000)).length).toBe(500);
  });
});

describe("typIs", () => {
  it("compares media types case-insensitively, with or without application/ (RFC 7515 §4.1.9)", () => {
    for (const typ of ["kb+jwt", "KB+JWT", "application/kb+jwt", "Application/Kb+Jwt"])
      expect(typIs(typ, "kb+jwt")).toBe(true);
    for (const typ of ["jwt", "kb+jwt ", "text/kb+jwt", "application/application/kb+jwt", undefined, 1])
      expect(typIs(typ, "kb+jwt")).toBe(false);
  });
});

describe("base64url", () => {
  it("round-trips bytes and JSON without padding", () => {
    const bytes = new Uint8Array([0xfb, 0xff, 0x00, 0x01]);
    expect(base64urlEncode(bytes)).toBe("-_8AAQ");
    expect(base64urlDecode("-_8AAQ")).toEqual(bytes);
    expect(base64urlDecodeJson(base64urlEncodeJson({ a: "é" }))).toEqual({ a: "é" });
  });

  it("rejects standard base64, padding and impossible lengths", () => {
    expect(() => base64urlDecode("+/8AAQ")).toThrow();
    expect(() => base64urlDecode("-_8AAQ==")).toThrow();
    expect(() => base64urlDecode("abcde")).toThrow();
  });
});

describe("jwkThumbprintKid", () => {
  it("matches the RFC 7638 §3.1 example", () => {
    const jwk = {
      kty: "RSA",
      n: "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
      e: "AQAB",
      alg: "RS256",
      kid: "2011-04-29",
    };
    expect(jwkThumbprintKid(jwk)).toBe("NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs");
  });

  it("matches the RFC 8037 Appendix A.3 OKP example", () => {
    const jwk = { kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" };
    expect(jwkThumbprintKid(jwk)).toBe("kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
  });

  it("equals jose's calculateJwkThumbprint (the library oracle) for generated P-256 keys", async () => {
    for (let i = 0; i < 5; i++) {
      const { publicKey } = await generateKeyPair("ES256", { extractable: true });
      const jwk = await exportJWK(publicKey);
      expect(jwkThumbprintKid(jwk)).toBe(await calculateJwkThumbprint(jwk, "sha256"));
    }
  });

  it("ignores non-required members and rejects unknown key types", () => {
    const ec = { kty: "EC", crv: "P-256", x: "a", y: "b" };
    expect(jwkThumbprintKid({ ...ec, kid: "x", d: "secret" })).toBe(jwkThumbprintKid(ec));
    expect(() => jwkThumbprintKid({ kty: "XYZ" })).toThrow();
    expect(() => jwkThumbprintKid({ kty: "EC", crv: "P-256", x: "a" })).toThrow();
  });
});

describe("ES256 keys", () => {
  it("generates a pair with kid = thumbprint, alg and use", async () => {
    const pair = await generateEs256KeyPair();
    expect(pair.publicJwk).toEqual({
      kty: "EC",
      crv: "P-256",
      x: pair.privateJwk.x,
      y: pair.privateJwk.y,
      kid: jwkThumbprintKid(pair.publicJwk),
      alg: "ES256",
      use: "sig",
    });
    expect(hasPrivateKeyMaterial(pair.publicJwk)).toBe(false);
    expect(hasPrivateKeyMaterial(pair.privateJwk)).toBe(true);
    expect(isCryptoKey(pair.privateKey)).toBe(true);
    expect(isCryptoKey(pair.publicJwk)).toBe(false);
  });

  it("imports private and public JWKs and signs / verifies", async () => {
    const pair = await generateEs256KeyPair();
    const priv = await importEs256PrivateKey(pair.privateJwk);
    const pub = await importEs256PublicKey(pair.publicJwk);
    const jwt = await signEs256Jwt({ alg: "ES256", typ: "test+jwt", kid: "k" }, { hello: "world" }, priv);
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: "ES256", typ: "test+jwt", kid: "k" });
    expect(decodeJwtUnverified(jwt).payload).toEqual({ hello: "world" });
    expect(await verifyEs256Signature(jwt, pub)).toBe(true);
    const other = await generateEs256KeyPair();
    expect(await verifyEs256Signature(jwt, other.publicKey)).toBe(false);
    expect(await verifyEs256Signature(`${jwt.slice(0, -4)}AAAA`, pub)).toBe(false);
  });

  it("refuses wrong curves, private JWKs as public keys and public keys for signing", async () => {
    const pair = await generateEs256KeyPair();
    await expect(importEs256PublicKey(pair.privateJwk)).rejects.toThrow(/public/);
    await expect(importEs256PrivateKey(pair.publicJwk)).rejects.toThrow(/private/);
    await expect(importEs256PublicKey({ ...pair.publicJwk, crv: "P-384" })).rejects.toThrow(/P-256/);
    await expect(signEs256Jwt({ alg: "ES256" }, {}, pair.publicKey)).rejects.toThrow(/private/);
    expect(await exportJWK(pair.publicKey)).toMatchObject({ x: pair.publicJwk.x });
  });

  it("decodeJwtUnverified rejects malformed input", () => {
    expect(() => decodeJwtUnverified("a.b")).toThrow();
    expect(() => decodeJwtUnverified(`${base64urlEncodeJson([1])}.${base64urlEncodeJson({})}.sig`)).toThrow();
    expect(() =>
      decodeJwtUnverified(`${base64urlEncodeJson({ alg: "ES256" })}.${base64urlEncodeJson("x")}.s`),
    ).toThrow();
  });
});

describe("ES256 over node:crypto, against jose", () => {
  it("verifies exactly what jose's compactVerify accepts, with a CryptoKey or a KeyObject", async () => {
    const pair = await generateEs256KeyPair();
    const other = await generateEs256KeyPair();
    const keyObject = es256PublicKeyObject(pair.publicJwk);
    const cryptoKey = await importEs256PublicKey(pair.publicJwk);
    const jwt = await signEs256Jwt({ alg: "ES256", typ: "JWT" }, { a: 1 }, pair.privateKey);
    const [h, p, sig] = jwt.split(".") as [string, string, string];
    const cases: [string, string, boolean][] = [
      ["valid", jwt, true],
      ["payload altered", `${h}.${base64urlEncodeJson({ a: 2 })}.${sig}`, false],
      ["alg none", `${base64urlEncodeJson({ alg: "none" })}.${p}.${sig}`, false],
      ["crit header", `${base64urlEncodeJson({ alg: "ES256", crit: ["x"], x: 1 })}.${p}.${sig}`, false],
      ["b64 false", `${base64urlEncodeJson({ alg: "ES256", b64: false, crit: ["b64"] })}.${p}.${sig}`, false],
      ["short signature", `${h}.${p}.${sig.slice(0, 40)}`, false],
      ["not a JWS", "a.b", false],
      ["signed by another key", await signEs256Jwt({ alg: "ES256" }, { a: 1 }, other.privateKey), false],
    ];
    for (const [name, token, expected] of cases) {
      const jose = await compactVerify(token, cryptoKey, { algorithms: ["ES256"] }).then(
        () => true,
        () => false,
      );
      expect(jose, `${name} (jose)`).toBe(expected);
      expect(await verifyEs256Signature(token, keyObject), name).toBe(expected);
      expect(await verifyEs256Signature(token, cryptoKey), `${name} (CryptoKey)`).toBe(expected);
    }
  });

  it("signs with a CryptoKey or a KeyObject what jose verifies, and refuses keys of the wrong kind", async () => {
    const pair = await generateEs256KeyPair();
    const cryptoKey = await importEs256PublicKey(pair.publicJwk);
    const privateObject = createPrivateKey({ key: pair.privateJwk as JsonWebKey, format: "jwk" });
    for (const key of [pair.privateKey, privateObject]) {
      const jwt = await signEs256Jwt({ alg: "ES256", typ: "t" }, { n: 1 }, key);
      const { payload } = await compactVerify(jwt, cryptoKey, { algorithms: ["ES256"] });
      expect(JSON.parse(new TextDecoder().decode(payload))).toEqual({ n: 1 });
    }
    const p384 = generateKeyPairSync("ec", { namedCurve: "P-384" });
    await expect(signEs256Jwt({ alg: "ES256" }, {}, p384.privateKey)).rejects.toThrow(/P-256/);
    const jwt = await signEs256Jwt({ alg: "ES256" }, {}, pair.privateKey);
    expect(await verifyEs256Signature(jwt, p384.publicKey)).toBe(false);
    expect(await verifyEs256Signature(jwt, privateObject)).toBe(false);
  });

  it("refuses private or non-P-256 JWKs", async () => {
    const pair = await generateEs256KeyPair();
    expect(() => es256PublicKeyObject(pair.privateJwk)).toThrow();
    expect(() => es256PublicKeyObject({ ...pair.publicJwk, crv: "P-384" })).toThrow();
    expect(() => es256PublicKeyObject({ ...pair.publicJwk, x: pair.publicJwk.y })).toThrow();
  });
});

describe("toEpochSeconds", () => {
  it("accepts Dates and seconds, refuses milliseconds", () => {
    expect(toEpochSeconds(new Date(1_700_000_000_999))).toBe(1_700_000_000);
    expect(toEpochSeconds(1_700_000_000)).toBe(1_700_000_000);
    expect(() => toEpochSeconds(1_700_000_000_000)).toThrow(/milliseconds/);
  });
});
