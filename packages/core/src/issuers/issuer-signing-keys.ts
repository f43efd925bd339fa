import type { Caches } from "../shared/caches";
import type { KeyCustody } from "../shared/key-custody";
import { signingKeysCache } from "./issuer-caches";
import { currentSigningKeyOf, type IssuerSigningKey, type WithIssuerKeys } from "./issuer-keys";

export type { IssuerSigningKey } from "./issuer-keys";

/** What signing with an issuer's key needs: the key providers and the process caches. */
export interface SigningKeyDeps {
  keyCustody: KeyCustody;
  caches: Caches;
}

/**
 * The issuer's current signing key, made ready once per process (`signingKeysCache`) by the provider its
 * row names (a sealed key opened and imported; an HSM key found in its token): kept while the issuer's
 * current key has this kid, replaced after a rotation.
 */
export function issuerSigningKey(
  deps: SigningKeyDeps,
  issuer: WithIssuerKeys & { id: string },
): Promise<IssuerSigningKey> {
  const { kid, privateKeyCipher, provider, providerKeyRef } = currentSigningKeyOf(issuer);
  return signingKeyOf(deps, { id: issuer.id, kid, privateKeyCipher, provider, providerKeyRef });
}

/**
 * Like `issuerSigningKey`, for a current key read on its own (a status list token's statement); kept
 * under `cacheKey` (the issuer id for its credential signing key).
 */
export function signingKeyOf(
  deps: SigningKeyDeps,
  issuer: {
    id: string;
    kid: string;
    privateKeyCipher: string | null;
    provider: string | null;
    providerKeyRef: string | null;
  },
  cacheKey = issuer.id,
): Promise<IssuerSigningKey> {
  const cache = deps.caches.of(signingKeysCache);
  let entry = cache.peek(cacheKey);
  if (entry?.kid !== issuer.kid) {
    const created = {
      kid: issuer.kid,
      key: (async () => {
        const stored = { ...issuer, sealedFor: issuer.id };
        if (issuer.privateKeyCipher === null && issuer.providerKeyRef === null)
          throw new Error(`Issuer ${issuer.id} holds no private signing key.`);
        return { kid: issuer.kid, privateKey: await deps.keyCustody.of(stored).signingKey(stored) };
      })(),
    };
    created.key.catch(() => {
      if (cache.peek(cacheKey) === created) cache.delete(cacheKey);
    });
    cache.set(cacheKey, created);
    entry = created;
  }
  return entry.key;
}
