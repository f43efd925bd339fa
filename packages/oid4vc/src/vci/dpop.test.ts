import { describe, expect, it } from "vitest";
import { jwkThumbprintKid } from "../jose/jwk";
import { signEs256Jwt } from "../jose/jws";
import { generateEs256KeyPair } from "../jose/keys";
import { accessTokenHash, createDpopProof, DpopProofError, verifyDpopProof } from "./dpop";

const URL_ = "https://issuer.example/issuers/iss_1/credential";
const NOW = 1_800_000_000;

async function failure(
  proof: Promise<string> | string,
  options: Partial<Parameters<typeof verifyDpopProof>[1]> = {},
) {
  try {
    await verifyDpopProof(await proof, { method: "POST", url: URL_, now: NOW, ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(DpopProofError);
    return (error as Error).message;
  }
  throw new Error("the proof was accepted");
}

describe("verifyDpopProof (RFC 9449 §4.3)", () => {
  it("accepts a proof for this request and returns the key's thumbprint, jti and iat", async () => {
    const key = await generateEs256KeyPair();
    const proof = await createDpopProof({
      ...key,
      method: "POST",
      url: URL_,
      iat: NOW,
      accessToken: "at-1",
      jti: "j1",
    });
    const verified = await verifyDpopProof(proof, {
      method: "POST",
      url: URL_,
      now: NOW,
      accessToken: "at-1",
    });
    expect(verified).toEqual({ jkt: jwkThumbprintKid(key.publicJwk), jti: "j1", iat: NOW });
    // htu is compared without query and fragment, with the host case-insensitive and default ports dropped.
    const loose = await createDpopProof({
      ...key,
      method: "POST",
      url: "https://ISSUER.example:443/issuers/iss_1/credential",
      iat: NOW,
    });
    await expect(
      verifyDpopProof(loose, { method: "POST", url: `${URL_}?x=1#f`, now: NOW }),
    ).resolves.toBeDefined();
  });

  it("refuses the wrong method, URL, age, access token hash, typ, alg, key and signature", async () => {
    const key = await generateEs256KeyPair();
    const other = await generateEs256KeyPair();
    const make = (over: Record<string, unknown> = {}) =>
      createDpopProof({ ...key, method: "POST", url: URL_, iat: NOW, ...over });
    expect(await failure(make({ method: "GET" }))).toMatch(/htm/);
    expect(await failure(make({ url: "https://issuer.example/issuers/iss_1/token" }))).toMatch(/htu/);
    expect(await failure(make({ iat: NOW - 301 }))).toMatch(/too old/);
    expect(await failure(make({ iat: NOW + 61 }))).toMatch(/future/);
    expect(await failure(make(), { accessToken: "at-1" })).toMatch(/must contain ath/);
    expect(await failure(make({ accessToken: "at-2" }), { accessToken: "at-1" })).toMatch(
      /ath does not match/,
    );

    const payload = { jti: "j", htm: "POST", htu: URL_, iat: NOW };
    const jwk = key.publicJwk;
    const signed = (header: Record<string, unknown>, body: Record<string, unknown> = payload) =>
      signEs256Jwt({ alg: "ES256", ...header }, body, key.privateKey);
    expect(await failure(signed({ typ: "JWT", jwk }))).toMatch(/typ/);
    expect(await failure(signed({ typ: "dpop+jwt" }))).toMatch(/jwk/);
    expect(await failure(signed({ typ: "dpop+jwt", jwk: key.privateJwk }))).toMatch(/private key/);
    expect(await failure(signed({ typ: "dpop+jwt", jwk: other.publicJwk }))).toMatch(/signature/);
    expect(await failure(signed({ typ: "dpop+jwt", jwk }, { htm: "POST", htu: URL_, iat: NOW }))).toMatch(
      /jti/,
    );
    const [, body, signature] = (await make()).split(".");
    const es384 = Buffer.from(JSON.stringify({ alg: "ES384", typ: "dpop+jwt", jwk })).toString("base64url");
    expect(await failure(`${es384}.${body}.${signature}`)).toMatch(/alg/);
    expect(await failure("not.a.jwt")).toMatch(/well-formed/);
  });

  it("hashes the access token as base64url SHA-256 of its ASCII", () => {
    // RFC 9449 §7.1 example.
    expect(accessTokenHash("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU")).toBe(
      "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo",
    );
  });
});
