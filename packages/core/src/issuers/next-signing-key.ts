import { inTransaction, Prisma } from "@cred/db";
import { generateEs256KeyPair } from "@cred/oid4vc";
import { DomainError } from "../shared/errors";
import type { IssuerDeps } from "./create-issuer";
import { loadIssuerDto } from "./get-issuer";
import type { TIssuer, TNextSigningKey } from "./issuer.schema";
import { findVisibleIssuer, type IssuerCaller, lockVisibleIssuer, scopeOfCaller } from "./issuer-caller";
import { type IssuerRow, issuerRepository } from "./issuer-repository";
import { type StoredSigningCertificate, signingCertificateDto } from "./stored-signing-certificate";

/** `Issuer.nextSigningKey` as stored (a type alias: Prisma's JSON input wants the index signature). */
export type StoredNextSigningKey = {
  kid: string;
  publicJwk: Record<string, unknown>;
  preparedAt: string;
  signingCertificate?: StoredSigningCertificate;
};

/** The prepared next key of a row, with its sealed private part; null when none is prepared. */
export function nextSigningKeyOf(
  row: Pick<IssuerRow, "nextSigningKey" | "nextPrivateKeyCipher">,
): (StoredNextSigningKey & { privateKeyCipher: string }) | null {
  const stored = row.nextSigningKey as Partial<StoredNextSigningKey> | null;
  if (!stored || typeof stored.kid !== "string" || !stored.publicJwk || !row.nextPrivateKeyCipher)
    return null;
  return { ...(stored as StoredNextSigningKey), privateKeyCipher: row.nextPrivateKeyCipher };
}

export function nextSigningKeyDto(
  row: Pick<IssuerRow, "nextSigningKey" | "nextPrivateKeyCipher">,
): TNextSigningKey | null {
  const next = nextSigningKeyOf(row);
  if (!next) return null;
  return {
    kid: next.kid,
    alg: "ES256",
    publicJwk: next.publicJwk,
    preparedAt: next.preparedAt,
    signingCertificate: signingCertificateDto(next.signingCertificate ?? null),
  };
}

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
  return inTransaction(deps.db, async (tx) => {
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
  return inTransaction(deps.db, async (tx) => {
    const issuer = await lockVisibleIssuer(tx, caller, issuerId);
    if (!nextSigningKeyOf(issuer)) return loadIssuerDto(tx, deps.config, scope, issuer);
    await issuerRepository.update(tx, scope, issuer.id, {
      nextSigningKey: Prisma.DbNull,
      nextPrivateKeyCipher: null,
    });
    return loadIssuerDto(tx, deps.config, scope, await findVisibleIssuer(tx, caller, issuer.id));
  });
}
