import type { TIssuer, TRotateCredentialEncryptionKeyRequest } from "@cred/contracts/issuers";
import { DomainError } from "../shared/errors";
import type { IssuerDeps } from "./create-issuer";
import { rotatedCredentialEncryptionColumns } from "./credential-encryption-key";
import { loadIssuerDto } from "./get-issuer";
import { findVisibleIssuer, type IssuerCaller, lockVisibleIssuer, scopeOfCaller } from "./issuer-caller";
import { issuerRepository } from "./issuer-repository";

/**
 * Issuers_RotateCredentialEncryptionKey: publishes a fresh request encryption key; the replaced one keeps
 * decrypting for `overlapSeconds` (a key replaced earlier is dropped). 409 when the issuer offers no
 * encryption. Under the issuer's row lock; the caller drops this process's opened keys after the commit.
 */
export async function rotateCredentialEncryptionKey(
  deps: IssuerDeps,
  caller: IssuerCaller,
  input: TRotateCredentialEncryptionKeyRequest,
): Promise<TIssuer> {
  const scope = scopeOfCaller(caller);
  return deps.db.transaction(async (tx) => {
    const issuer = await lockVisibleIssuer(tx, caller, input.issuerId);
    const columns = rotatedCredentialEncryptionColumns(
      deps.secretBox,
      issuer.id,
      issuer,
      input.overlapSeconds,
    );
    if (!columns) {
      throw new DomainError(
        "InvalidState",
        "This issuer offers no credential encryption; turn it on with credentialEncryption first.",
      );
    }
    await issuerRepository.update(tx, scope, issuer.id, columns);
    return loadIssuerDto(tx, deps.config, scope, await findVisibleIssuer(tx, caller, issuer.id));
  });
}
