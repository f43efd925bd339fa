import { importEs256PrivateKey } from "@cred/oid4vc";
import type { JWK } from "jose";
import type { Caches } from "../shared/caches";
import type { SecretBox } from "../shared/secret-box";
import { signingKeysCache } from "./issuer-caches";
import { currentSigningKeyOf, type IssuerSigningKey, type WithIssuerKeys } from "./issuer-keys";

export type { IssuerSigningKey } from "./issuer-keys";

/**
 * The issuer's current signing key, decrypted and imported once per process (`signingKeysCache`): kept
 * while the issuer's current key has this kid, replaced after a rotation.
 */
export function issuerSigningKey(
  deps: { secretBox: SecretBox; caches: Caches },
  issuer: WithIssuerKeys & { id: string },
): Promise<IssuerSigningKey> {
  const { kid, privateKeyCipher } = currentSigningKeyOf(issuer);
  return signingKeyOf(deps, { id: issuer.id, kid, privateKeyCipher });
}

/** Like `issuerSigningKey`, for a current key read on its own (a status list token's statement). */
export function signingKeyOf(
  deps: { secretBox: SecretBox; caches: Caches },
  issuer: { id: string; kid: string; privateKeyCipher: string | null },
): Promise<IssuerSigningKey> {
  const cache = deps.caches.of(signingKeysCache);
  let entry = cache.peek(issuer.id);
  if (entry?.kid !== issuer.kid) {
    const created = {
      kid: issuer.kid,
      key: (async () => {
        if (issuer.privateKeyCipher === null)
          throw new Error(`Issuer ${issuer.id} holds no private signing key.`);
        const jwk = JSON.parse(deps.secretBox.open(issuer.privateKeyCipher, issuer.id)) as JWK;
        return { kid: issuer.kid, privateKey: await importEs256PrivateKey(jwk) };
      })(),
    };
    created.key.catch(() => {
      if (cache.peek(issuer.id) === created) cache.delete(issuer.id);
    });
    cache.set(issuer.id, created);
    entry = created;
  }
  return entry.key;
}
