import type { TIssuer } from "@cred/contracts/issuers";
import { Prisma } from "@cred/db";
import { generateEs256KeyPair } from "@cred/oid4vc";
import { DomainError } from "../shared/errors";
import type { IssuerDeps } from "./create-issuer";
import { loadIssuerDto } from "./get-issuer";
import { findVisibleIssuer, type IssuerCaller, lockVisibleIssuer, scopeOfCaller } from "./issuer-caller";
import { issuerRepository } from "./issuer-repository";
import { nextSigningKeyOf, type StoredNextSigningKey } from "./stored-next-signing-key";

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
    const next: StoredNextSigningKey = {
      kid: publicJwk.kid as string,
      publicJwk: publicJwk as Record<string, unknown>,
      preparedAt: new Date().toISOString(),
    };
    await issuerRepository.update(tx, scope, issuer.id, {
      nextSigningKey: next as Prisma.InputJsonObject,
      nextPrivateKeyCipher: deps.secretBox.seal(JSON.stringify(privateJwk), issuer.id),
    });
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
    await issuerRepository.update(tx, scope, issuer.id, {
      nextSigningKey: Prisma.DbNull,
      nextPrivateKeyCipher: null,
    });
    return loadIssuerDto(tx, deps.config, scope, await findVisibleIssuer(tx, caller, issuer.id));
  });
}
