import { importEs256PrivateKey } from "@cred/oid4vc";
import type { CryptoKey, JWK } from "jose";
import type { SecretBox } from "../shared/secret-box";

export interface IssuerSigningKey {
  kid: string;
  privateKey: CryptoKey;
}

/**
 * Decrypted, imported issuer signing keys, per process: one per issuer, replaced when the issuer row
 * names another kid (a rotation). Importing costs more than signing, so this matters on the hot path.
 */
const cache = new Map<string, { kid: string; key: Promise<IssuerSigningKey> }>();

export function issuerSigningKey(
  secretBox: SecretBox,
  issuer: { id: string; signingKid: string; privateKeyCipher: string },
): Promise<IssuerSigningKey> {
  let entry = cache.get(issuer.id);
  if (entry?.kid !== issuer.signingKid) {
    const created = {
      kid: issuer.signingKid,
      key: (async () => {
        const jwk = JSON.parse(secretBox.open(issuer.privateKeyCipher, issuer.id)) as JWK;
        return { kid: issuer.signingKid, privateKey: await importEs256PrivateKey(jwk) };
      })(),
    };
    created.key.catch(() => {
      if (cache.get(issuer.id) === created) cache.delete(issuer.id);
    });
    cache.set(issuer.id, created);
    entry = created;
  }
  return entry.key;
}
