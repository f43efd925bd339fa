// P-256 public keys as a PKCS#11 token gives them, without the native binding (unit-testable anywhere).
import { jwkThumbprintKid } from "@cred/oid4vc";
import type { JWK } from "jose";

/** An uncompressed P-256 point from CKA_EC_POINT: a DER OCTET STRING around it (v2.40), or the bare point. */
export function ecPointOf(value: Buffer): Buffer {
  const bare = value.length === 67 && value[0] === 0x04 && value[1] === 0x41 ? value.subarray(2) : value;
  if (bare.length !== 65 || bare[0] !== 0x04)
    throw new Error("the token's CKA_EC_POINT is not a P-256 point");
  return bare;
}

/** The public JWK of an uncompressed P-256 point, with its RFC 7638 thumbprint as `kid`. */
export function publicJwkOfPoint(point: Buffer, usage: "sign" | "derive"): JWK & { kid: string } {
  const jwk: JWK = {
    kty: "EC",
    crv: "P-256",
    x: point.subarray(1, 33).toString("base64url"),
    y: point.subarray(33, 65).toString("base64url"),
  };
  const kid = jwkThumbprintKid(jwk);
  return usage === "sign"
    ? { ...jwk, kid, alg: "ES256", use: "sig" }
    : { ...jwk, kid, alg: "ECDH-ES", use: "enc" };
}
