import { SDJwtInstance } from "@sd-jwt/core";
import { decodeSdJwt } from "@sd-jwt/decode";
import { base64url, decodeJwt, decodeProtectedHeader, exportJWK, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { sdJwtSigner, sha256Hasher } from "./keys";
import { decodeCredential, presentationFrame, presentCredential, subjectClaims, valueAt } from "./sd-jwt";
import type { StoredKey } from "./store";

const ES256 = { name: "ECDSA", namedCurve: "P-256" } as const;

async function holderKey(): Promise<StoredKey & { publicKey: CryptoKey }> {
  const pair = await crypto.subtle.generateKey(ES256, false, ["sign", "verify"]);
  return {
    id: "k",
    privateKey: pair.privateKey,
    publicKey: pair.publicKey,
    publicJwk: await exportJWK(pair.publicKey),
    createdAt: "",
  };
}

/** An SD-JWT VC issued by @sd-jwt/core (the library as an independent issuer). */
async function issue(holder: StoredKey) {
  const issuerPair = await crypto.subtle.generateKey(ES256, false, ["sign", "verify"]);
  const issuer = new SDJwtInstance({
    hasher: sha256Hasher,
    hashAlg: "sha-256",
    signer: sdJwtSigner({ privateKey: issuerPair.privateKey }),
    signAlg: "ES256",
    saltGenerator: () => base64url.encode(crypto.getRandomValues(new Uint8Array(16))),
  });
  return issuer.issue(
    {
      iss: "https://issuer.example",
      iat: 1_700_000_000,
      vct: "https://example.com/card",
      cnf: { jwk: holder.publicJwk },
      given_name: "Erika",
      family_name: "Mustermann",
      address: { country: "DE", street: "Heidestraße 17" },
    } as never,
    { _sd: ["given_name", "family_name", "address"], address: { _sd: ["country", "street"] } } as never,
  );
}

describe("decodeCredential", () => {
  it("applies the disclosures and keeps the subject's claims apart from registered ones", async () => {
    const holder = await holderKey();
    const decoded = await decodeCredential(await issue(holder));
    expect(decoded.disclosureCount).toBe(5);
    expect(subjectClaims(decoded.claims)).toEqual({
      given_name: "Erika",
      family_name: "Mustermann",
      address: { country: "DE", street: "Heidestraße 17" },
    });
    expect(valueAt(decoded.claims, ["address", "country"])).toEqual(["DE"]);
    expect(valueAt(decoded.claims, ["missing"])).toEqual([]);
  });
});

describe("presentCredential", () => {
  it("discloses only the chosen paths and binds the presentation with a KB-JWT over sd_hash", async () => {
    const holder = await holderKey();
    const compact = await issue(holder);
    const { claims } = await decodeCredential(compact);
    const presentation = await presentCredential({
      compact,
      claims,
      disclose: [["given_name"], ["address", "country"]],
      holderKey: holder,
      aud: "x509_hash:abc",
      nonce: "n-123",
      extraKeyBindingClaims: { transaction_data_hashes: ["h"] },
    });
    const shown = await decodeCredential(presentation);
    expect(subjectClaims(shown.claims)).toEqual({ given_name: "Erika", address: { country: "DE" } });

    const kbJwt = presentation.slice(presentation.lastIndexOf("~") + 1);
    const sdJwt = presentation.slice(0, presentation.lastIndexOf("~") + 1);
    expect(decodeProtectedHeader(kbJwt)).toEqual({ typ: "kb+jwt", alg: "ES256" });
    const { payload } = await jwtVerify(kbJwt, holder.publicKey);
    expect(payload).toMatchObject({ aud: "x509_hash:abc", nonce: "n-123", transaction_data_hashes: ["h"] });
    expect(payload.sd_hash).toBe(base64url.encode(await sha256Hasher(sdJwt)));
    expect(typeof decodeJwt(kbJwt).iat).toBe("number");
    expect((await decodeSdJwt(presentation, sha256Hasher)).disclosures).toHaveLength(3);
  });
});

describe("presentationFrame", () => {
  it("expands null over the array's elements", () => {
    expect(presentationFrame({ n: ["a", "b"] }, [["n", null]])).toEqual({ n: { 0: true, 1: true } });
    expect(presentationFrame({ a: { b: 1 } }, [["a", "b"], ["c"]])).toEqual({ a: { b: true }, c: true });
  });
});
