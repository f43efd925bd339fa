import type { TNextSigningKey } from "@cred/contracts/issuers";
import type { IssuerRow } from "./issuer-repository";
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
