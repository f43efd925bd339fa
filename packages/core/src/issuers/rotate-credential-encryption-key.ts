import type { TIssuer, TRotateCredentialEncryptionKeyRequest } from "@cred/contracts/issuers";
import { DomainError } from "../shared/errors";
import type { IssuerDeps } from "./create-issuer";
import { generateCredentialEncryptionKey, rotateCredentialEncryptionKeys } from "./credential-encryption-key";
import { loadIssuerDto } from "./get-issuer";
import { findVisibleIssuer, type IssuerCaller, lockVisibleIssuer, scopeOfCaller } from "./issuer-caller";
import { discardMintedOnFailure } from "./issuer-key-custody";
import { issuerRepository } from "./issuer-repository";

/**
 * Issuers_RotateCredentialEncryptionKey: publishes a fresh request encryption key; the replaced one keeps
 * decrypting for `overlapSeconds` (a key replaced earlier is dropped). 409 when the issuer offers no
 * encryption. Under the issuer's row lock; this process drops its opened keys once committed.
 */
export async function rotateCredentialEncryptionKey(
  deps: IssuerDeps,
  caller: IssuerCaller,
  input: TRotateCredentialEncryptionKeyRequest,
): Promise<TIssuer> {
  const scope = scopeOfCaller(caller);
  return discardMintedOnFailure(deps, input.issuerId, (mint) =>
    deps.db.transaction(async (tx) => {
      const issuer = await lockVisibleIssuer(tx, caller, input.issuerId);
      const now = new Date();
      // The fresh key is made in the custody the issuer names now (so it can move into an HSM this way).
      const rotated = await rotateCredentialEncryptionKeys(
        tx,
        deps,
        { issuerId: issuer.id, ...scope },
        issuer,
        input.overlapSeconds,
        now,
        () => mint(() => generateCredentialEncryptionKey(deps, issuer)),
      );
      if (!rotated) {
        throw new DomainError(
          "InvalidState",
          "This issuer offers no credential encryption; turn it on with credentialEncryption first.",
        );
      }
      await issuerRepository.update(tx, deps.caches, scope, issuer.id, { updatedAt: now });
      return loadIssuerDto(tx, deps.config, scope, await findVisibleIssuer(tx, caller, issuer.id));
    }),
  );
}
