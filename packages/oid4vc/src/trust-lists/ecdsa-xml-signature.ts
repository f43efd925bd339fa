/**
 * ECDSA signature methods for xml-crypto, which ships only RSA and HMAC: XML Signature 1.1 ecdsa-sha256/384/512
 * (RFC 6931), whose SignatureValue is r || s (the IEEE P1363 form), not DER.
 */
import {
  type BinaryLike,
  createPrivateKey,
  createPublicKey,
  type KeyLike,
  KeyObject,
  sign,
  verify,
} from "node:crypto";
import type { SignedXml } from "xml-crypto";

export const ECDSA_SIGNATURE_METHODS = {
  "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256": "sha256",
  "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384": "sha384",
  "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha512": "sha512",
} as const;

function ecdsaAlgorithm(uri: string, hash: string) {
  return class EcdsaSignatureAlgorithm {
    getSignature(
      signedInfo: BinaryLike,
      privateKey: KeyLike,
      callback?: (error: Error | null, value?: string) => void,
    ) {
      const value = sign(hash, Buffer.from(signedInfo as string), {
        key: privateKey instanceof KeyObject ? privateKey : createPrivateKey(privateKey),
        dsaEncoding: "ieee-p1363",
      }).toString("base64");
      if (callback) {
        callback(null, value);
        return;
      }
      return value;
    }
    verifySignature(material: string, key: KeyLike, signatureValue: string): boolean {
      return verify(
        hash,
        Buffer.from(material),
        { key: key instanceof KeyObject ? key : createPublicKey(key), dsaEncoding: "ieee-p1363" },
        Buffer.from(signatureValue, "base64"),
      );
    }
    getAlgorithmName() {
      return uri;
    }
  };
}

/** Registers the ECDSA signature methods on one SignedXml instance (signing or verifying). */
export function withEcdsaSignatureMethods(signedXml: SignedXml): SignedXml {
  for (const [uri, hash] of Object.entries(ECDSA_SIGNATURE_METHODS)) {
    signedXml.SignatureAlgorithms[uri] = ecdsaAlgorithm(
      uri,
      hash,
    ) as unknown as (typeof signedXml.SignatureAlgorithms)[string];
  }
  return signedXml;
}
