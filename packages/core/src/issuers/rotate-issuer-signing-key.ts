import {
  MAX_PREVIOUS_SIGNING_KEYS,
  type TIssuer,
  type TRotateIssuerSigningKeyRequest,
} from "@cred/contracts/issuers";
import { Prisma } from "@cred/db";
import { generateEs256KeyPair } from "@cred/oid4vc";
import { DomainError } from "../shared/errors";
import { activeIssuerCache } from "./active-issuer-cache";
import type { IssuerDeps } from "./create-issuer";
import { loadIssuerDto } from "./get-issuer";
import { findVisibleIssuer, type IssuerCaller, lockVisibleIssuer, scopeOfCaller } from "./issuer-caller";
import { previousSigningKeysOf, type StoredPreviousSigningKey } from "./issuer-dto";
import { issuerRepository } from "./issuer-repository";
import { forgetPlatformIssuerKeys } from "./platform-issuer-keys";
import { nextSigningKeyOf } from "./stored-next-signing-key";

/**
 * Gives the issuer a fresh ES256 signing key. The replaced key's private part is discarded; its public
 * part stays published (`keep`) or is withdrawn. Every status list gets a new version in the same
 * transaction, so its token is signed again with the new key on its next fetch, in every process.
 * Issuance in other processes switches within the issuer cache's lifetime (active-issuer-cache.ts); this
 * process's caches are for the caller to clear once the rotation has committed (`forgetRotatedIssuerKey`).
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
    // A prepared next key takes over, with its certificate chain; otherwise a fresh key, without one.
    const next = nextSigningKeyOf(issuer);
    const incoming = next
      ? {
          kid: next.kid,
          publicJwk: next.publicJwk,
          privateKeyCipher: next.privateKeyCipher,
          signingCertificate: next.signingCertificate ?? Prisma.DbNull,
        }
      : {
          kid: generated.publicJwk.kid as string,
          publicJwk: generated.publicJwk as Record<string, unknown>,
          privateKeyCipher: deps.secretBox.seal(JSON.stringify(generated.privateJwk), issuer.id),
          signingCertificate: Prisma.DbNull,
        };
    const kept = previousSigningKeysOf(issuer);
    const previousSigningKeys: StoredPreviousSigningKey[] =
      input.replacedKey === "keep"
        ? [
            {
              kid: issuer.signingKid,
              publicJwk: issuer.publicJwk as Record<string, unknown>,
              retiredAt: new Date().toISOString(),
            },
            ...kept,
          ]
        : kept;
    if (previousSigningKeys.length > MAX_PREVIOUS_SIGNING_KEYS) {
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
    await issuerRepository.update(tx, scope, issuer.id, {
      signingKid: incoming.kid,
      publicJwk: incoming.publicJwk as object,
      privateKeyCipher: incoming.privateKeyCipher,
      previousSigningKeys: previousSigningKeys as Prisma.InputJsonArray,
      // The old chain certifies the replaced key; the new key brings its own, if it was prepared with one.
      signingCertificate: incoming.signingCertificate,
      nextSigningKey: Prisma.DbNull,
      nextPrivateKeyCipher: null,
    });
    await issuerRepository.bumpStatusListVersions(tx, issuer.id);
    return loadIssuerDto(tx, deps.config, scope, await findVisibleIssuer(tx, caller, issuer.id));
  });
}

/**
 * After a rotation has committed (also the outer transaction of an Idempotency-Key): this process
 * forgets the issuer's row and the platform keys it verifies with, so both take effect here at once.
 * Called before the commit, a request in between could cache the replaced key again.
 */
export function forgetRotatedIssuerKey(issuerId: string): void {
  activeIssuerCache.forgetIssuer(issuerId);
  forgetPlatformIssuerKeys();
}
