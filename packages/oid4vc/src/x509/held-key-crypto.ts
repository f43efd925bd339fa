import type { webcrypto } from "node:crypto";
import type { Es256Signer } from "../jose/jws";
import type { x509 } from "./peculiar-x509";

const ES256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

/**
 * What @peculiar/x509 needs to sign a PKCS#10 request with a P-256 key held elsewhere (an HSM, a KMS):
 * a stand-in private `CryptoKey` and a WebCrypto whose `sign` asks the signer (ES256: the raw `r || s`
 * signature WebCrypto returns too, which @peculiar/x509 encodes as DER itself). Every other operation is
 * the platform's WebCrypto.
 */
export function heldKeyCrypto(signer: Es256Signer): {
  privateKey: webcrypto.CryptoKey;
  crypto: Parameters<typeof x509.Pkcs10CertificateRequestGenerator.create>[1];
} {
  const subtle = globalThis.crypto.subtle;
  return {
    privateKey: { algorithm: ES256, type: "private" } as unknown as webcrypto.CryptoKey,
    crypto: {
      subtle: new Proxy(subtle, {
        get: (target, property) =>
          property === "sign"
            ? async (_algorithm: unknown, _key: unknown, data: ArrayBuffer | ArrayBufferView) =>
                (await signer.signEs256(bytesOf(data))).slice().buffer
            : Reflect.get(target, property).bind(target),
      }),
    } as unknown as Parameters<typeof x509.Pkcs10CertificateRequestGenerator.create>[1],
  };
}

const bytesOf = (data: ArrayBuffer | ArrayBufferView) =>
  ArrayBuffer.isView(data)
    ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    : new Uint8Array(data);
