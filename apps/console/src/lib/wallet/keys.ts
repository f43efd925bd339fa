import { base64url, exportJWK, type JWTHeaderParameters, type JWTPayload, SignJWT } from "jose";
import { putKey, type StoredKey } from "./store";

const ES256 = { name: "ECDSA", namedCurve: "P-256" } as const;

/** A fresh ES256 key pair made by the browser; the private half is non-extractable and kept in IndexedDB. */
export async function createHolderKey(): Promise<StoredKey> {
  const pair = await crypto.subtle.generateKey(ES256, false, ["sign", "verify"]);
  const { kty, crv, x, y } = await exportJWK(pair.publicKey);
  return putKey({
    id: crypto.randomUUID(),
    privateKey: pair.privateKey,
    publicJwk: { kty, crv, x, y },
    createdAt: new Date().toISOString(),
  });
}

/** A compact ES256 JWS by a stored key (proof JWTs, DPoP proofs, KB-JWTs). */
export function signJwt(
  key: Pick<StoredKey, "privateKey">,
  header: Omit<JWTHeaderParameters, "alg">,
  payload: JWTPayload,
): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ ...header, alg: "ES256" }).sign(key.privateKey);
}

/** `@sd-jwt`'s Signer: base64url of the raw (r‖s) ES256 signature over the signing input. */
export function sdJwtSigner(key: Pick<StoredKey, "privateKey">) {
  return async (data: string): Promise<string> => {
    const signature = await crypto.subtle.sign(
      { name: "ECDSA", hash: "SHA-256" },
      key.privateKey,
      new TextEncoder().encode(data),
    );
    return base64url.encode(new Uint8Array(signature));
  };
}

/** SHA-256 for `@sd-jwt` (disclosure digests, sd_hash) through WebCrypto. */
export async function sha256Hasher(data: string | ArrayBuffer): Promise<Uint8Array> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : new Uint8Array(data);
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

export function randomToken(bytes = 32): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(bytes)));
}
