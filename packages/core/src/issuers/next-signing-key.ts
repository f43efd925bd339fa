import type { TIssuer } from "@cred/contracts/issuers";
import { generateEs256KeyPair } from "@cred/oid4vc";
import { DomainError } from "../shared/errors";
import type { IssuerDeps } from "./create-issuer";
import { loadIssuerDto } from "./get-issuer";
import { findVisibleIssuer, type IssuerCaller, lockVisibleIssuer, scopeOfCaller } from "./issuer-caller";
import { issuerKeyRepository } from "./issuer-key-repository";
import { issuerRepository } from "./issuer-repository";
import { nextSigningKeyOf } from "./stored-next-signing-key";

export const noNextSigningKey = () =>
  new DomainError("InvalidState", "The issuer has no prepared next signing key; prepare one first.", [
    { code: "InvalidState", target: "key", message: "Call Issuers_PrepareSigningKey first." },
  ]);

/**
 * Prepares the key the next rotation switches to (sealed like the signing key), so that its certificate
 * can be requested and set before it signs anything. A key prepared already is kept and returned.
 */
export async function prepareNextSigningKey(
  deps: IssuerDeps,
  caller: IssuerCaller,
  issuerId: string,
): Promise<TIssuer> {
  const scope = scopeOfCaller(caller);
  const { privateJwk, publicJwk } = await generateEs256KeyPair();
  return deps.db.transaction(async (tx) => {
    const issuer = await lockVisibleIssuer(tx, caller, issuerId);
    if (nextSigningKeyOf(issuer)) return loadIssuerDto(tx, deps.config, scope, issuer);
    const now = new Date();
    await issuerKeyRepository.create(
      tx,
      deps.caches,
      { issuerId: issuer.id, ...scope },
      "credential_signing",
      "next",
      {
        kid: publicJwk.kid as string,
        publicJwk: publicJwk as Record<string, unknown>,
        privateKeyCipher: deps.secretBox.seal(JSON.stringify(privateJwk), issuer.id),
      },
      now,
    );
    await issuerRepository.update(tx, deps.caches, scope, issuer.id, { updatedAt: now });
    return loadIssuerDto(tx, deps.config, scope, await findVisibleIssuer(tx, caller, issuer.id));
  });
}

/** Discards the prepared next key (and its certificate); nothing prepared → the issuer unchanged. */
export async function discardNextSigningKey(
  deps: IssuerDeps,
  caller: IssuerCaller,
  issuerId: string,
): Promise<TIssuer> {
  const scope = scopeOfCaller(caller);
  return deps.db.transaction(async (tx) => {
    const issuer = await lockVisibleIssuer(tx, caller, issuerId);
    if (!nextSigningKeyOf(issuer)) return loadIssuerDto(tx, deps.config, scope, issuer);
    await issuerKeyRepository.deleteInStates(tx, deps.caches, scope, issuer.id, "credential_signing", [
      "next",
    ]);
    await issuerRepository.update(tx, deps.caches, scope, issuer.id, { updatedAt: new Date() });
    return loadIssuerDto(tx, deps.config, scope, await findVisibleIssuer(tx, caller, issuer.id));
  });
}
