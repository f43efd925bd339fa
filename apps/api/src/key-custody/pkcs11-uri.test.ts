import { generateKeyPairSync } from "node:crypto";
import { calculateJwkThumbprint } from "jose";
import { describe, expect, it } from "vitest";
import { ecPointOf, publicJwkOfPoint } from "./ec-point";
import { formatPkcs11Uri, parsePkcs11Uri } from "./pkcs11-uri";

describe("PKCS#11 URIs of key rows (RFC 7512)", () => {
  it("names the token and the CKA_ID, and reads back what it wrote", () => {
    const id = Buffer.from("8a01ff00", "hex");
    const uri = formatPkcs11Uri({ token: "issuers prod;1", id });
    expect(uri).toBe("pkcs11:token=issuers%20prod%3b1;id=%8a%01%ff%00");
    expect(parsePkcs11Uri(uri)).toEqual({ token: "issuers prod;1", id });
  });

  it("reads URIs written by other tools, and refuses what names no token or id", () => {
    expect(parsePkcs11Uri("pkcs11:model=SoftHSM%20v2;token=t1;id=%01%02;object=k?pin-source=x")).toEqual({
      token: "t1",
      id: Buffer.from([1, 2]),
    });
    expect(parsePkcs11Uri("pkcs11:token=t1")).toBeNull();
    expect(parsePkcs11Uri("file:token=t1;id=%01")).toBeNull();
  });
});

describe("public keys read from a token", () => {
  const point = () => {
    const { publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    return { publicKey, raw: publicKey.export({ format: "der", type: "spki" }).subarray(-65) };
  };

  it("takes CKA_EC_POINT as a DER OCTET STRING (v2.40) or bare, and refuses anything else", () => {
    const { raw } = point();
    expect(ecPointOf(Buffer.concat([Buffer.from([0x04, 0x41]), raw]))).toEqual(raw);
    expect(ecPointOf(raw)).toEqual(raw);
    expect(() => ecPointOf(raw.subarray(1))).toThrow(/P-256 point/);
  });

  it("makes the JWK node:crypto exports, with the RFC 7638 thumbprint as kid", async () => {
    const { publicKey, raw } = point();
    const expected = publicKey.export({ format: "jwk" });
    const jwk = publicJwkOfPoint(raw, "sign");
    expect(jwk).toMatchObject({
      kty: "EC",
      crv: "P-256",
      x: expected.x,
      y: expected.y,
      alg: "ES256",
      use: "sig",
    });
    expect(jwk.kid).toBe(
      await calculateJwkThumbprint({ kty: "EC", crv: "P-256", x: expected.x!, y: expected.y! }),
    );
    expect(publicJwkOfPoint(raw, "derive")).toMatchObject({ alg: "ECDH-ES", use: "enc" });
  });
});
