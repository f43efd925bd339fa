import { webcrypto } from "node:crypto";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import type { JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { base64urlEncodeJson } from "../jose/base64url";
import { decodeJwtUnverified, signEs256Jwt } from "../jose/jws";
import { type Es256KeyPair, generateEs256KeyPair } from "../jose/keys";
import { createDisclosure, digestDisclosure } from "./disclosure";
import { decodeSdJwt, presentSdJwtVc } from "./holder";
import { type IssueSdJwtVcInput, issueSdJwtVc } from "./issue-sd-jwt-vc";
import { computeSdHash, createKbJwt } from "./key-binding";
import { type VerifySdJwtVcOptions, type VerifySdJwtVcResult, verifySdJwtVc } from "./verify-sd-jwt-vc";

const NOW = 1_750_000_000;
const ISS = "https://issuer.example.com/tenant-1";
const VCT = "https://credentials.example.com/identity_credential";
const AUD = "x509_san_dns:verifier.example.org";
const NONCE = "n-0S6_WzA2Mj";

let issuer: Es256KeyPair;
let holder: Es256KeyPair;
let stranger: Es256KeyPair;

beforeAll(async () => {
  [issuer, holder, stranger] = await Promise.all([
    generateEs256KeyPair(),
    generateEs256KeyPair(),
    generateEs256KeyPair(),
  ]);
});

const claims = {
  given_name: "Erika",
  family_name: "Mustermann",
  birthdate: "1963-08-12",
  address: { street_address: "Heidestraße 17", locality: "Köln", country: "DE" },
  nationalities: ["DE", "FR"],
};

function issueInput(overrides: Partial<IssueSdJwtVcInput> = {}): IssueSdJwtVcInput {
  return {
    privateKey: issuer.privateKey,
    kid: issuer.publicJwk.kid!,
    iss: ISS,
    vct: VCT,
    iat: NOW - 60,
    exp: NOW + 3600,
    cnfJwk: holder.publicJwk,
    status: { idx: 4711, uri: "https://issuer.example.com/status/1" },
    claims,
    disclosable: [
      ["given_name"],
      ["family_name"],
      ["birthdate"],
      ["address"],
      ["address", "street_address"],
      ["nationalities", null],
    ],
    ...overrides,
  };
}

function verifyOptions(overrides: Partial<VerifySdJwtVcOptions> = {}): VerifySdJwtVcOptions {
  return {
    resolveIssuerKey: async (header, payload) =>
      payload.iss === ISS && header.kid === issuer.publicJwk.kid ? issuer.publicKey : null,
    now: NOW,
    expectedVct: [VCT],
    keyBinding: { required: true, audience: AUD, nonce: NONCE },
    ...overrides,
  };
}

const kb = (overrides: Partial<{ aud: string; nonce: string; iat: number }> = {}) => ({
  privateKey: holder.privateKey,
  aud: AUD,
  nonce: NONCE,
  iat: NOW,
  ...overrides,
});

function codes(result: VerifySdJwtVcResult): string[] {
  return result.ok ? [] : result.reasons.map((r) => r.code);
}

describe("issueSdJwtVc", () => {
  it("produces a dc+sd-jwt with registered claims in plain text and only disclosable claims hidden", async () => {
    const token = await issueSdJwtVc(issueInput({ sub: "user-42", nbf: NOW - 60 }));
    expect(token.endsWith("~")).toBe(true);
    const decoded = decodeSdJwt(token);
    expect(decoded.header).toEqual({ alg: "ES256", typ: "dc+sd-jwt", kid: issuer.publicJwk.kid });
    const { _sd, address, nationalities, ...plain } = decoded.payload;
    expect(plain).toEqual({
      iss: ISS,
      sub: "user-42",
      iat: NOW - 60,
      nbf: NOW - 60,
      exp: NOW + 3600,
      vct: VCT,
      cnf: { jwk: holder.publicJwk },
      status: { status_list: { idx: 4711, uri: "https://issuer.example.com/status/1" } },
      _sd_alg: "sha-256",
    });
    expect(address).toBeUndefined();
    expect(_sd).toHaveLength(4);
    expect(nationalities).toEqual([{ "...": expect.any(String) }, { "...": expect.any(String) }]);
    expect(decoded.disclosures).toHaveLength(7);
    expect(decoded.claims).toMatchObject(claims);
    // 128-bit salts, all distinct
    const salts = new Set(decoded.disclosures.map((d) => d.salt));
    expect(salts.size).toBe(7);
  });

  it("issues unlinkable batch credentials (fresh salts every time)", async () => {
    const [a, b] = await Promise.all([issueSdJwtVc(issueInput()), issueSdJwtVc(issueInput())]);
    const saltsA = decodeSdJwt(a).disclosures.map((d) => d.salt);
    const saltsB = decodeSdJwt(b).disclosures.map((d) => d.salt);
    expect(saltsA.filter((s) => saltsB.includes(s))).toEqual([]);
  });

  it("issues a credential without disclosures as <jwt>~", async () => {
    const token = await issueSdJwtVc(issueInput({ disclosable: [], claims: { given_name: "Erika" } }));
    expect(token.split("~")).toHaveLength(2);
    expect(decodeSdJwt(token).payload._sd).toBeUndefined();
  });

  it("refuses registered claims inside claims, private cnf keys and disclosable registered claims", async () => {
    await expect(issueSdJwtVc(issueInput({ claims: { ...claims, iss: "x" } }))).rejects.toThrow(/own input/);
    await expect(issueSdJwtVc(issueInput({ cnfJwk: holder.privateJwk }))).rejects.toThrow(/public/);
    await expect(issueSdJwtVc(issueInput({ disclosable: [["status"]] }))).rejects.toThrow(/never/);
    await expect(issueSdJwtVc(issueInput({ exp: NOW - 120 }))).rejects.toThrow(/exp/);
  });
});

describe("verifySdJwtVc", () => {
  it("accepts a full presentation with key binding", async () => {
    const token = await issueSdJwtVc(issueInput());
    const presentation = await presentSdJwtVc(token, { disclose: "all", kb: kb() });
    const result = await verifySdJwtVc(presentation, verifyOptions());
    expect(codes(result)).toEqual([]);
    if (!result.ok) return;
    expect(result.payload).toMatchObject({ ...claims, iss: ISS, vct: VCT });
    expect(result.payload._sd).toBeUndefined();
    expect(result.payload._sd_alg).toBeUndefined();
    expect(result.cnfJwk).toEqual(holder.publicJwk);
    expect(result.status).toEqual({ idx: 4711, uri: "https://issuer.example.com/status/1" });
    expect(result.keyBindingVerified).toBe(true);
    expect(result.keyBindingClaims).toEqual({ iat: NOW, aud: AUD, nonce: NONCE });
    expect(result.disclosedPaths).toEqual(
      expect.arrayContaining([
        ["given_name"],
        ["address"],
        ["address", "street_address"],
        ["nationalities", 0],
        ["nationalities", 1],
      ]),
    );
  });

  it("accepts a KB-JWT whose iat has a fraction of a second (a NumericDate)", async () => {
    const token = await issueSdJwtVc(issueInput());
    const presentation = await presentSdJwtVc(token, { disclose: "all", kb: kb({ iat: NOW - 0.5 }) });
    const result = await verifySdJwtVc(presentation, verifyOptions());
    expect(codes(result)).toEqual([]);
    expect(result.ok && result.keyBindingClaims?.iat).toBe(NOW - 0.5);
  });

  it("accepts a selective presentation and reveals only what was disclosed", async () => {
    const token = await issueSdJwtVc(issueInput());
    const presentation = await presentSdJwtVc(token, {
      disclose: [["given_name"], ["address", "street_address"], ["nationalities", 1]],
      kb: kb(),
    });
    const result = await verifySdJwtVc(presentation, verifyOptions());
    expect(codes(result)).toEqual([]);
    if (!result.ok) return;
    expect(result.payload.given_name).toBe("Erika");
    expect(result.payload.family_name).toBeUndefined();
    expect(result.payload.birthdate).toBeUndefined();
    // the parent disclosure comes along (recursive disclosure), with only the requested child
    expect(result.payload.address).toEqual({
      street_address: "Heidestraße 17",
      locality: "Köln",
      country: "DE",
    });
    expect(result.payload.nationalities).toEqual(["FR"]);
    expect(result.disclosedPaths).toEqual(
      expect.arrayContaining([
        ["given_name"],
        ["address"],
        ["address", "street_address"],
        ["nationalities", 0],
      ]),
    );
    expect(result.disclosedPaths).toHaveLength(4);
  });

  it("accepts an issuer JWK from the resolver, and no key binding when not required", async () => {
    const token = await issueSdJwtVc(issueInput());
    const result = await verifySdJwtVc(token, {
      ...verifyOptions({ keyBinding: { required: false, audience: AUD, nonce: NONCE } }),
      resolveIssuerKey: async () => issuer.publicJwk as JWK,
    });
    expect(codes(result)).toEqual([]);
    expect(result.ok && result.keyBindingVerified).toBe(false);
  });

  it("rejects a missing KB-JWT when key binding is required", async () => {
    const token = await issueSdJwtVc(issueInput());
    expect(codes(await verifySdJwtVc(token, verifyOptions()))).toEqual(["key_binding_missing"]);
  });

  it("checks a KB-JWT that is present even when key binding is optional", async () => {
    const token = await issueSdJwtVc(issueInput());
    const forged = await presentSdJwtVc(token, {
      disclose: "all",
      kb: { ...kb(), privateKey: stranger.privateKey },
    });
    const result = await verifySdJwtVc(
      forged,
      verifyOptions({ keyBinding: { required: false, audience: AUD, nonce: NONCE } }),
    );
    expect(codes(result)).toEqual(["invalid_kb_signature"]);
  });

  it.each([
    ["kb_audience_mismatch", { aud: "x509_san_dns:evil.example" }],
    ["kb_nonce_mismatch", { nonce: "other" }],
    ["kb_iat_out_of_window", { iat: NOW - 301 }],
    ["kb_iat_out_of_window", { iat: NOW + 61 }],
  ] as const)("rejects %s", async (code, override) => {
    const token = await issueSdJwtVc(issueInput());
    const presentation = await presentSdJwtVc(token, { disclose: "all", kb: kb(override) });
    expect(codes(await verifySdJwtVc(presentation, verifyOptions()))).toEqual([code]);
  });

  it("honours iatWindowSeconds", async () => {
    const token = await issueSdJwtVc(issueInput());
    const presentation = await presentSdJwtVc(token, { disclose: "all", kb: kb({ iat: NOW - 100 }) });
    const options = verifyOptions({
      keyBinding: { required: true, audience: AUD, nonce: NONCE, iatWindowSeconds: 30 },
    });
    expect(codes(await verifySdJwtVc(presentation, options))).toEqual(["kb_iat_out_of_window"]);
  });

  it("rejects a KB-JWT whose sd_hash covers other disclosures (disclosures added or removed afterwards)", async () => {
    const token = await issueSdJwtVc(issueInput());
    const full = decodeSdJwt(token);
    const presented = await presentSdJwtVc(token, { disclose: [["given_name"]], kb: kb() });
    const kbJwt = presented.slice(presented.lastIndexOf("~") + 1);
    const extra = full.disclosures.find((d) => d.name === "family_name")!.encoded;
    const tampered = presented.replace(`~${kbJwt}`, `~${extra}~${kbJwt}`);
    expect(codes(await verifySdJwtVc(tampered, verifyOptions()))).toEqual(["kb_sd_hash_mismatch"]);
    const withoutAny = `${full.sdJwt.slice(0, full.sdJwt.indexOf("~") + 1)}${kbJwt}`;
    expect(codes(await verifySdJwtVc(withoutAny, verifyOptions()))).toEqual(["kb_sd_hash_mismatch"]);
  });

  it("rejects a KB-JWT with the wrong typ, malformed claims, or signed by a key other than cnf.jwk", async () => {
    const token = await issueSdJwtVc(issueInput());
    const sdJwt = await presentSdJwtVc(token, { disclose: "all" });
    const claimsKb = { iat: NOW, aud: AUD, nonce: NONCE, sd_hash: computeSdHash(sdJwt) };
    const wrongTyp = await signEs256Jwt({ alg: "ES256", typ: "JWT" }, claimsKb, holder.privateKey);
    expect(codes(await verifySdJwtVc(`${sdJwt}${wrongTyp}`, verifyOptions()))).toEqual(["invalid_kb_typ"]);
    const noNonce = await signEs256Jwt(
      { alg: "ES256", typ: "kb+jwt" },
      { ...claimsKb, nonce: undefined },
      holder.privateKey,
    );
    expect(codes(await verifySdJwtVc(`${sdJwt}${noNonce}`, verifyOptions()))).toEqual(["invalid_kb_format"]);
    const otherKey = await createKbJwt({ ...kb(), privateKey: stranger.privateKey, sdJwt });
    expect(codes(await verifySdJwtVc(`${sdJwt}${otherKey}`, verifyOptions()))).toEqual([
      "invalid_kb_signature",
    ]);
    expect(codes(await verifySdJwtVc(`${sdJwt}garbage`, verifyOptions()))).toEqual(["invalid_kb_format"]);
    const noneAlg = `${base64urlEncodeJson({ alg: "none", typ: "kb+jwt" })}.${base64urlEncodeJson(claimsKb)}.x`;
    expect(codes(await verifySdJwtVc(`${sdJwt}${noneAlg}`, verifyOptions()))).toEqual([
      "invalid_kb_signature",
    ]);
  });

  it("rejects key binding for a credential without cnf", async () => {
    const token = await issueSdJwtVc(issueInput({ cnfJwk: undefined }));
    const presentation = await presentSdJwtVc(token, { disclose: "all", kb: kb() });
    expect(codes(await verifySdJwtVc(presentation, verifyOptions()))).toEqual(["invalid_cnf"]);
  });

  it("rejects wrong typ, accepting vc+sd-jwt only behind the flag", async () => {
    const legacy = await signEs256Jwt(
      { alg: "ES256", typ: "vc+sd-jwt", kid: issuer.publicJwk.kid },
      { iss: ISS, vct: VCT, iat: NOW, exp: NOW + 60 },
      issuer.privateKey,
    );
    const opts = verifyOptions({ keyBinding: undefined });
    expect(codes(await verifySdJwtVc(`${legacy}~`, opts))).toEqual(["invalid_typ"]);
    expect(codes(await verifySdJwtVc(`${legacy}~`, { ...opts, acceptLegacyTyp: true }))).toEqual([]);
    const jwtTyp = await signEs256Jwt(
      { alg: "ES256", typ: "JWT", kid: issuer.publicJwk.kid },
      { vct: VCT },
      issuer.privateKey,
    );
    expect(codes(await verifySdJwtVc(`${jwtTyp}~`, { ...opts, acceptLegacyTyp: true }))).toEqual([
      "invalid_typ",
    ]);
  });

  it("rejects malformed tokens", async () => {
    const opts = verifyOptions();
    for (const bad of [
      "",
      "abc",
      "a.b.c",
      "a.b~",
      "~~",
      `${base64urlEncodeJson({ alg: "ES256" })}.e30.x~~d~`,
    ]) {
      expect(codes(await verifySdJwtVc(bad, opts))).toEqual(["invalid_format"]);
    }
  });

  it("rejects unknown issuers, resolver errors and non-ES256 algs", async () => {
    const token = await issueSdJwtVc(issueInput({ iss: "https://other.example" }));
    expect(codes(await verifySdJwtVc(token, verifyOptions()))).toEqual(["unknown_issuer_key"]);
    const throwing = verifyOptions({
      resolveIssuerKey: async () => {
        throw new Error("registry down");
      },
    });
    expect(codes(await verifySdJwtVc(token, throwing))).toEqual(["unknown_issuer_key"]);
    const hs = `${base64urlEncodeJson({ alg: "HS256", typ: "dc+sd-jwt" })}.${base64urlEncodeJson({ vct: VCT })}.sig~`;
    expect(codes(await verifySdJwtVc(hs, verifyOptions()))).toEqual(["unsupported_alg"]);
  });

  it("rejects a token signed by another key, or with a modified payload", async () => {
    const forged = await issueSdJwtVc(issueInput({ privateKey: stranger.privateKey }));
    expect(codes(await verifySdJwtVc(forged, verifyOptions()))).toEqual(["invalid_issuer_signature"]);
    const token = await issueSdJwtVc(issueInput());
    const [h, p, s] = token.slice(0, token.indexOf("~")).split(".");
    const payload = decodeJwtUnverified(`${h}.${p}.${s}`).payload;
    const modified = `${h}.${base64urlEncodeJson({ ...payload, vct: "urn:other" })}.${s}${token.slice(token.indexOf("~"))}`;
    expect(codes(await verifySdJwtVc(modified, verifyOptions()))).toEqual(["invalid_issuer_signature"]);
  });

  it("takes a credential as of each type in its aka_vcts (§2.2.2.2), which cannot be disclosed selectively", async () => {
    const token = await issueSdJwtVc(
      issueInput({ vct: "urn:pid:de", claims: { ...claims, aka_vcts: ["urn:pid"] } }),
    );
    const presentation = await presentSdJwtVc(token, { disclose: "all", kb: kb() });
    expect((await verifySdJwtVc(presentation, verifyOptions({ expectedVct: ["urn:pid"] }))).ok).toBe(true);
    expect(codes(await verifySdJwtVc(presentation, verifyOptions({ expectedVct: ["urn:other"] })))).toEqual([
      "vct_mismatch",
    ]);
    await expect(
      issueSdJwtVc(issueInput({ claims: { ...claims, aka_vcts: ["urn:pid"] }, disclosable: [["aka_vcts"]] })),
    ).rejects.toThrow();
  });

  it("reports vct mismatch, expiry and not-yet-valid together", async () => {
    const token = await issueSdJwtVc(issueInput({ iat: NOW - 7200, exp: NOW - 3600, nbf: NOW + 3600 }));
    const presentation = await presentSdJwtVc(token, { disclose: "all", kb: kb() });
    const result = await verifySdJwtVc(presentation, verifyOptions({ expectedVct: ["urn:other"] }));
    expect(codes(result).sort()).toEqual(["expired", "not_yet_valid", "vct_mismatch"]);
  });

  it("applies clock tolerance to exp", async () => {
    const token = await issueSdJwtVc(issueInput({ exp: NOW - 30, iat: NOW - 100 }));
    const opts = verifyOptions({ keyBinding: undefined });
    expect(codes(await verifySdJwtVc(token, opts))).toEqual([]);
    expect(codes(await verifySdJwtVc(token, { ...opts, clockToleranceSeconds: 0 }))).toEqual(["expired"]);
  });

  it("rejects unknown, duplicated and malformed disclosures", async () => {
    const token = await issueSdJwtVc(issueInput());
    const opts = verifyOptions({ keyBinding: undefined });
    const foreign = createDisclosure("c2FsdHNhbHRzYWx0c2FsdA", "given_name", "Mallory").encoded;
    expect(codes(await verifySdJwtVc(`${token}${foreign}~`, opts))).toEqual(["invalid_disclosure"]);
    const first = decodeSdJwt(token).disclosures[0]!.encoded;
    expect(codes(await verifySdJwtVc(`${token}${first}~`, opts))).toEqual(["invalid_disclosure"]);
    expect(codes(await verifySdJwtVc(`${token}bm90IGpzb24~`, opts))).toEqual(["invalid_disclosure"]);
  });

  it("rejects a disclosure of a registered claim and an unsupported _sd_alg", async () => {
    const opts = verifyOptions({ keyBinding: undefined });
    const vct = createDisclosure("c2FsdA", "vct", VCT);
    const hidden = await signEs256Jwt(
      { alg: "ES256", typ: "dc+sd-jwt", kid: issuer.publicJwk.kid },
      { iss: ISS, vct: VCT, _sd: [digestDisclosure(vct.encoded)] },
      issuer.privateKey,
    );
    expect(codes(await verifySdJwtVc(`${hidden}~${vct.encoded}~`, opts))).toEqual(["invalid_disclosure"]);
    const sha512 = await signEs256Jwt(
      { alg: "ES256", typ: "dc+sd-jwt", kid: issuer.publicJwk.kid },
      { iss: ISS, vct: VCT, _sd_alg: "sha-512" },
      issuer.privateKey,
    );
    expect(codes(await verifySdJwtVc(`${sha512}~`, opts))).toEqual(["unsupported_sd_alg"]);
    const noVct = await signEs256Jwt(
      { alg: "ES256", typ: "dc+sd-jwt", kid: issuer.publicJwk.kid },
      { iss: ISS },
      issuer.privateKey,
    );
    expect(codes(await verifySdJwtVc(`${noVct}~`, opts))).toEqual(["invalid_format"]);
  });
});

describe("interoperability with @sd-jwt/sd-jwt-vc 0.19", () => {
  const subtle = webcrypto.subtle;
  const ecdsa = { name: "ECDSA", hash: "SHA-256" } as const;
  const lib = () =>
    new SDJwtVcInstance({
      signer: async (data: string) =>
        Buffer.from(
          await subtle.sign(ecdsa, issuer.privateKey as webcrypto.CryptoKey, Buffer.from(data)),
        ).toString("base64url"),
      signAlg: "ES256",
      verifier: async (data: string, sig: string) =>
        subtle.verify(
          ecdsa,
          issuer.publicKey as webcrypto.CryptoKey,
          Buffer.from(sig, "base64url"),
          Buffer.from(data),
        ),
      hasher: async (data: string | ArrayBuffer) =>
        new Uint8Array(await subtle.digest("SHA-256", typeof data === "string" ? Buffer.from(data) : data)),
      hashAlg: "sha-256",
      saltGenerator: async () =>
        Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString("base64url"),
      kbSigner: async (data: string) =>
        Buffer.from(
          await subtle.sign(ecdsa, holder.privateKey as webcrypto.CryptoKey, Buffer.from(data)),
        ).toString("base64url"),
      kbSignAlg: "ES256",
      kbVerifier: async (data: string, sig: string) =>
        subtle.verify(
          ecdsa,
          holder.publicKey as webcrypto.CryptoKey,
          Buffer.from(sig, "base64url"),
          Buffer.from(data),
        ),
    });

  it("the library verifies our issued credential and our KB-JWT", async () => {
    const now = Math.floor(Date.now() / 1000);
    // no status claim: the library would try to fetch the status list over the network
    const token = await issueSdJwtVc(issueInput({ iat: now - 10, exp: now + 600, status: undefined }));
    const presentation = await presentSdJwtVc(token, {
      disclose: "all",
      kb: kb({ iat: now }),
    });
    const verified = await lib().verify(presentation, { keyBindingNonce: NONCE });
    expect(verified.payload).toMatchObject({ given_name: "Erika", address: claims.address, vct: VCT });
    expect(verified.kb?.payload).toMatchObject({ aud: AUD, nonce: NONCE });
  });

  it("we verify the library's credential and presentation", async () => {
    const now = Math.floor(Date.now() / 1000);
    const credential = await lib().issue(
      {
        iss: ISS,
        iat: now,
        exp: now + 600,
        vct: VCT,
        cnf: { jwk: holder.publicJwk as Record<string, unknown> },
        given_name: "Erika",
        family_name: "Mustermann",
        address: { locality: "Köln", country: "DE" },
      },
      { _sd: ["given_name", "family_name"], address: { _sd: ["locality"] } } as never,
      { header: { kid: issuer.publicJwk.kid } },
    );
    const presentation = await lib().present(
      credential,
      { given_name: true, address: { locality: true } } as never,
      { kb: { payload: { iat: now, aud: AUD, nonce: NONCE } } },
    );
    const result = await verifySdJwtVc(presentation, verifyOptions({ now }));
    expect(codes(result)).toEqual([]);
    if (!result.ok) return;
    expect(result.payload.given_name).toBe("Erika");
    expect(result.payload.family_name).toBeUndefined();
    expect(result.payload.address).toEqual({ locality: "Köln", country: "DE" });
    expect(result.keyBindingVerified).toBe(true);
  });
});
