import { generateKeyPairSync, sign } from "node:crypto";
import { compactVerify, exportJWK, importJWK } from "jose";
import { describe, expect, it } from "vitest";
import { createIssuerCertificateRequest } from "../sd-jwt-vc/issuer-certificate";
import { x509 } from "../x509/peculiar-x509";
import { type Es256Signer, es256SignerOf, isEs256Signer, signEs256Jwt } from "./jws";
import { generateEs256KeyPair } from "./keys";

/** A signer standing in for an HSM: it holds its key and hands out only raw r || s signatures. */
function remoteSigner() {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const signer: Es256Signer = {
    signEs256: async (input) => sign("sha256", input, { key: privateKey, dsaEncoding: "ieee-p1363" }),
  };
  return { signer, publicKey };
}

describe("ES256 through a signer that holds its key elsewhere (key custody)", () => {
  it("signs a JWS that jose verifies with the public key", async () => {
    const { signer, publicKey } = remoteSigner();
    const jwt = await signEs256Jwt({ alg: "ES256", typ: "JWT", kid: "k" }, { a: 1 }, signer);
    const { payload, protectedHeader } = await compactVerify(jwt, publicKey);
    expect(protectedHeader).toEqual({ alg: "ES256", typ: "JWT", kid: "k" });
    expect(JSON.parse(Buffer.from(payload).toString())).toEqual({ a: 1 });
  });

  it("refuses a signature that is not 64 bytes (a DER signature, say)", async () => {
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const der: Es256Signer = { signEs256: async (input) => sign("sha256", input, privateKey) };
    await expect(signEs256Jwt({ alg: "ES256" }, {}, der)).rejects.toThrow(/64 bytes/);
  });

  it("es256SignerOf turns a key in the process into a signer; a signer stays itself", async () => {
    const pair = await generateEs256KeyPair();
    const signer = es256SignerOf(pair.privateKey);
    expect(isEs256Signer(signer)).toBe(true);
    const jwt = await signEs256Jwt({ alg: "ES256" }, { b: 2 }, signer);
    await expect(compactVerify(jwt, await importJWK(pair.publicJwk, "ES256"))).resolves.toBeDefined();
    const remote = remoteSigner().signer;
    expect(es256SignerOf(remote)).toBe(remote);
    const p384 = generateKeyPairSync("ec", { namedCurve: "P-384" }).privateKey;
    expect(() => es256SignerOf(p384)).toThrow(/P-256/);
  });

  it("a CSR signed by the signer verifies and names its public key", async () => {
    const { signer, publicKey } = remoteSigner();
    const publicJwk = await exportJWK(publicKey);
    const pem = await createIssuerCertificateRequest({
      signingKey: signer,
      publicJwk,
      commonName: "HSM issuer",
      credentialIssuer: "https://issuer.example/issuers/1",
    });
    const csr = new x509.Pkcs10CertificateRequest(pem);
    expect(await csr.verify()).toBe(true);
    const named = await crypto.subtle.exportKey("jwk", await csr.publicKey.export());
    expect({ x: named.x, y: named.y }).toEqual({ x: publicJwk.x, y: publicJwk.y });
    // Signed by another key than the one it names: it does not verify.
    const forged = await createIssuerCertificateRequest({
      signingKey: remoteSigner().signer,
      publicJwk,
      commonName: "HSM issuer",
      credentialIssuer: "https://issuer.example/issuers/1",
    });
    expect(await new x509.Pkcs10CertificateRequest(forged).verify()).toBe(false);
  });
});
