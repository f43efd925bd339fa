import { importEs256PrivateKey } from "@cred/oid4vc";
import type { CryptoKey, JWK } from "jose";
import type { SecretBox } from "../shared/secret-box";

export interface IssuerSigningKey {
  kid: string;
  privateKey: CryptoKey;
}

/**
 * Decrypted, imported issuer signing keys, per process. Keys never change after an issuer is created,
 * so caching is safe; importing costs more than signing, so this matters on the hot path.
 */
const cache = new Map<string, Promise<IssuerSigningKey>>();

export function issuerSigningKey(
  secretBox: SecretBox,
  issuer: { id: string; signingKid: string; privateKeyCipher: string },
): Promise<IssuerSigningKey> {
  let entry = cache.get(issuer.id);
  if (!entry) {
    entry = (async () => {
      const jwk = JSON.parse(secretBox.open(issuer.privateKeyCipher, issuer.id)) as JWK;
      return { kid: issuer.signingKid, privateKey: await importEs256PrivateKey(jwk) };
    })();
    entry.catch(() => cache.delete(issuer.id));
    cache.set(issuer.id, entry);
  }
  return entry;
}
