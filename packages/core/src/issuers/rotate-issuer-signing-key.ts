import {
  MAX_PREVIOUS_SIGNING_KEYS,
  type TIssuer,
  type TRotateIssuerSigningKeyRequest,
} from "@cred/contracts/issuers";
import { DomainError } from "../shared/errors";
import type { IssuerDeps } from "./create-issuer";
import { loadIssuerDto } from "./get-issuer";
import { findVisibleIssuer, type IssuerCaller, lockVisibleIssuer, scopeOfCaller } from "./issuer-caller";
import { destroyAfterCommit, discardIfNotStored, generateIssuerSigningKey } from "./issuer-key-custody";
import { issuerKeyRepository, type NewIssuerKey } from "./issuer-key-repository";
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
  // Without a prepared next key, a fresh one is made first (by the provider the issuer's custody names),
  // outside the row lock; a key not stored after all (a next key was prepared meanwhile) is destroyed.
  const seen = await deps.db.transaction((tx) => findVisibleIssuer(tx, caller, input.issuerId));
  const generated = nextSigningKeyOf(seen) ? null : await generateIssuerSigningKey(deps, seen);
  return discardIfNotStored(deps, seen.id, generated, () => rotate(deps, caller, input, generated));
}

async function rotate(
  deps: IssuerDeps,
  caller: IssuerCaller,
  input: TRotateIssuerSigningKeyRequest,
  generated: NewIssuerKey | null,
): Promise<{ result: TIssuer; used: boolean }> {
  const scope = scopeOfCaller(caller);
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
    // A next key prepared between the first read and the lock: rotate again to make a fresh key.
    if (!next && !generated) throw new DomainError("InvalidState", "The issuer's keys changed; try again.");
    const incomingKid = next ? next.kid : generated!.kid;
    const now = new Date();
    await issuerKeyRepository.switchSigningKey(
      tx,
      deps.caches,
      { issuerId: issuer.id, ...scope },
      { keyId: current.id, keep: input.replacedKey === "keep" },
      next ? { nextKeyId: next.id } : { fresh: generated! },
      now,
    );
    // The replaced key's private part is discarded: an HSM key is destroyed in its token once committed.
    destroyAfterCommit(tx, deps, [current]);
    await issuerRepository.update(tx, deps.caches, scope, issuer.id, { updatedAt: now });
    await issuerRepository.bumpStatusListVersions(tx, issuer.id);
    tx.afterCommit(() => forgetPlatformIssuerKeys(deps.caches, scope, [current.kid, incomingKid]));
    return {
      used: !next,
      result: await loadIssuerDto(tx, deps.config, scope, await findVisibleIssuer(tx, caller, issuer.id)),
    };
  });
}
