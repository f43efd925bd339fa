import {
  MAX_PREVIOUS_SIGNING_KEYS,
  type TIssuer,
  type TRotateIssuerSigningKeyRequest,
} from "@cred/contracts/issuers";
import { generateEs256KeyPair } from "@cred/oid4vc";
import { DomainError } from "../shared/errors";
import type { IssuerDeps } from "./create-issuer";
import { loadIssuerDto } from "./get-issuer";
import { findVisibleIssuer, type IssuerCaller, lockVisibleIssuer, scopeOfCaller } from "./issuer-caller";
import { issuerKeyRepository } from "./issuer-key-repository";
import { currentSigningKeyOf, retiredSigningKeysOf } from "./issuer-keys";
import { issuerRepository } from "./issuer-repository";
import { forgetPlatformIssuerKeys } from "./platform-issuer-keys";
import { nextSigningKeyOf } from "./stored-next-signing-key";

/**
 * Gives the issuer a fresh ES256 signing key. The replaced key's private part is discarded; its public
 * part stays published (`keep`) or is withdrawn. Every status list gets a new version in the same
 * transaction, so its token is signed again with the new key on its next fetch, in every process.
 * Issuance in other processes switches within the issuer cache's lifetime (issuer-caches.ts); this
 * process forgets the issuer and the platform keys it verifies with once the rotation has committed
 * (also the outer transaction of an Idempotency-Key): before the commit, a request in between could
 * cache the replaced key again.
 */
export async function rotateIssuerSigningKey(
  deps: IssuerDeps,
  caller: IssuerCaller,
  input: TRotateIssuerSigningKeyRequest,
): Promise<TIssuer> {
  const scope = scopeOfCaller(caller);
  const generated = await generateEs256KeyPair();
  return deps.db.transaction(async (tx) => {
    const issuer = await lockVisibleIssuer(tx, caller, input.issuerId);
    const current = currentSigningKeyOf(issuer);
    const kept = retiredSigningKeysOf(issuer).length + (input.replacedKey === "keep" ? 1 : 0);
    if (kept > MAX_PREVIOUS_SIGNING_KEYS) {
      throw new DomainError(
        "PlatformLimit",
        `An issuer publishes at most ${MAX_PREVIOUS_SIGNING_KEYS} replaced keys; rotate with replacedKey "withdraw", or create a new issuer.`,
        [
          {
            code: "PlatformLimit",
            target: "replacedKey",
            message: `At most ${MAX_PREVIOUS_SIGNING_KEYS} kept keys.`,
          },
        ],
      );
    }
    // A prepared next key takes over, with its certificate chain; otherwise a fresh key, without one.
    // The old chain stays with the replaced key, which no longer signs.
    const next = nextSigningKeyOf(issuer);
    const incomingKid = next ? next.kid : (generated.publicJwk.kid as string);
    const now = new Date();
    await issuerKeyRepository.switchSigningKey(
      tx,
      deps.caches,
      { issuerId: issuer.id, ...scope },
      { keyId: current.id, keep: input.replacedKey === "keep" },
      next
        ? { nextKeyId: next.id }
        : {
            fresh: {
              kid: incomingKid,
              publicJwk: generated.publicJwk as Record<string, unknown>,
              privateKeyCipher: deps.secretBox.seal(JSON.stringify(generated.privateJwk), issuer.id),
            },
          },
      now,
    );
    await issuerRepository.update(tx, deps.caches, scope, issuer.id, { updatedAt: now });
    await issuerRepository.bumpStatusListVersions(tx, issuer.id);
    tx.afterCommit(() => forgetPlatformIssuerKeys(deps.caches, scope, [current.kid, incomingKid]));
    return loadIssuerDto(tx, deps.config, scope, await findVisibleIssuer(tx, caller, issuer.id));
  });
}
