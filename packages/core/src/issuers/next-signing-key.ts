import type { TIssuer } from "@cred/contracts/issuers";
import { DomainError } from "../shared/errors";
import type { IssuerDeps } from "./create-issuer";
import { loadIssuerDto } from "./get-issuer";
import { findVisibleIssuer, type IssuerCaller, lockVisibleIssuer, scopeOfCaller } from "./issuer-caller";
import { destroyAfterCommit, discardIfNotStored, generateIssuerSigningKey } from "./issuer-key-custody";
import { custodyOf, sameCustody } from "./issuer-key-custody-purposes";
import { issuerKeyRepository } from "./issuer-key-repository";
import { issuerRepository } from "./issuer-repository";
import { nextSigningKeyOf } from "./stored-next-signing-key";

export const noNextSigningKey = () =>
  new DomainError("InvalidState", "The issuer has no prepared next signing key; prepare one first.", [
    { code: "InvalidState", target: "key", message: "Call Issuers_PrepareSigningKey first." },
  ]);

/**
 * Prepares the key the next rotation switches to, made by the provider the issuer's custody names now
 * (so an issuer moves into an HSM through a normal rotation), so that its certificate can be requested
 * and set before it signs anything. A key prepared already is kept and returned.
 */
export async function prepareNextSigningKey(
  deps: IssuerDeps,
  caller: IssuerCaller,
  issuerId: string,
): Promise<TIssuer> {
  const scope = scopeOfCaller(caller);
  // The key is made (by the provider the issuer's custody names now) before the row lock is taken, so
  // that an HSM round trip never holds it; a key not stored after all is destroyed again.
  const seen = await deps.db.transaction((tx) => findVisibleIssuer(tx, caller, issuerId));
  if (nextSigningKeyOf(seen)) return deps.db.transaction((tx) => loadIssuerDto(tx, deps.config, scope, seen));
  const key = await generateIssuerSigningKey(deps, seen);
  return discardIfNotStored(deps, seen.id, key, () =>
    deps.db.transaction(async (tx) => {
      const issuer = await lockVisibleIssuer(tx, caller, issuerId);
      if (
        nextSigningKeyOf(issuer) ||
        !sameCustody(custodyOf(issuer, "credential_signing"), custodyOf(seen, "credential_signing"))
      )
        return { used: false, result: await loadIssuerDto(tx, deps.config, scope, issuer) };
      const now = new Date();
      await issuerKeyRepository.create(
        tx,
        deps.caches,
        { issuerId: issuer.id, ...scope },
        "credential_signing",
        "next",
        key,
        now,
      );
      await issuerRepository.update(tx, deps.caches, scope, issuer.id, { updatedAt: now });
      return {
        used: true,
        result: await loadIssuerDto(tx, deps.config, scope, await findVisibleIssuer(tx, caller, issuer.id)),
      };
    }),
  );
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
    destroyAfterCommit(
      tx,
      deps,
      issuer.keys.filter((key) => key.purpose === "credential_signing" && key.state === "next"),
    );
    await issuerKeyRepository.deleteInStates(tx, deps.caches, scope, issuer.id, "credential_signing", [
      "next",
    ]);
    await issuerRepository.update(tx, deps.caches, scope, issuer.id, { updatedAt: new Date() });
    return loadIssuerDto(tx, deps.config, scope, await findVisibleIssuer(tx, caller, issuer.id));
  });
}
