import type { Issuer, IssuerKey } from "@cred/db";
import type { Es256SigningKey } from "@cred/oid4vc";
import type { StoredSigningCertificate } from "./stored-signing-certificate";

/** What a key is for (prisma/schema.prisma `IssuerKey.purpose`); metadata_signing may follow. */
export type IssuerKeyPurpose = "credential_signing" | "credential_request_encryption" | "status_list_signing";
/** Where a key is in its life: prepared, in use, or replaced (still published or still decrypting). */
export type IssuerKeyState = "next" | "current" | "retired";

export type IssuerKeyRow = IssuerKey;

/** An issuer's keys as read with its row (issuer-repository.ts reads them together). */
export interface WithIssuerKeys {
  keys: IssuerKeyRow[];
}

/** An issuer's row with its keys (IssuerKey rows), read in one statement (a join). */
export type IssuerRow = Issuer & WithIssuerKeys;

/** A signing key made ready by its provider: a private key in the process, or a signer in an HSM. */
export interface IssuerSigningKey {
  kid: string;
  privateKey: Es256SigningKey;
}

const newestRetiredFirst = (a: IssuerKeyRow, b: IssuerKeyRow) =>
  (b.retiredAt?.getTime() ?? 0) - (a.retiredAt?.getTime() ?? 0) ||
  b.createdAt.getTime() - a.createdAt.getTime() ||
  (a.id < b.id ? 1 : -1);

function keysOf(row: WithIssuerKeys, purpose: IssuerKeyPurpose, state: IssuerKeyState) {
  return row.keys.filter((key) => key.purpose === purpose && key.state === state);
}

/** The key the issuer signs with now. Every issuer has one from its creation on. */
export function currentSigningKeyOf(row: WithIssuerKeys & { id: string }): IssuerKeyRow {
  const key = keysOf(row, "credential_signing", "current")[0];
  if (!key) throw new Error(`Issuer ${row.id} has no current signing key.`);
  return key;
}

/** The prepared next signing key, when one is prepared (and its private part is at hand). */
export function nextSigningKeyRowOf(row: WithIssuerKeys): IssuerKeyRow | null {
  const key = keysOf(row, "credential_signing", "next")[0];
  return key && (key.privateKeyCipher !== null || key.providerKeyRef !== null) ? key : null;
}

/** Replaced signing keys the issuer still publishes, newest first; their private parts are gone. */
export function retiredSigningKeysOf(row: WithIssuerKeys): IssuerKeyRow[] {
  return keysOf(row, "credential_signing", "retired").sort(newestRetiredFirst);
}

/** The issuer's separate status list signing key, or null when its credential signing key signs status lists. */
export function statusListSigningKeyOf(row: WithIssuerKeys): IssuerKeyRow | null {
  return keysOf(row, "status_list_signing", "current")[0] ?? null;
}

/**
 * Retired separate status list signing keys whose tokens may still be held (`acceptedUntil` ahead):
 * still published in the JWKS, so that those tokens keep verifying until they expire.
 */
export function retiredStatusListSigningKeysOf(row: WithIssuerKeys, now = Date.now()): IssuerKeyRow[] {
  return keysOf(row, "status_list_signing", "retired").filter(
    (key) => key.acceptedUntil !== null && key.acceptedUntil.getTime() > now,
  );
}

/** The request encryption key wallets encrypt to now, or null. */
export function currentEncryptionKeyOf(row: WithIssuerKeys): IssuerKeyRow | null {
  return keysOf(row, "credential_request_encryption", "current")[0] ?? null;
}

/** The replaced request encryption key while it still decrypts (`acceptedUntil` ahead), or null. */
export function acceptedRetiredEncryptionKeyOf(row: WithIssuerKeys, now = Date.now()): IssuerKeyRow | null {
  return (
    keysOf(row, "credential_request_encryption", "retired")
      .filter((key) => key.acceptedUntil !== null && key.acceptedUntil.getTime() > now)
      .sort(newestRetiredFirst)[0] ?? null
  );
}

/** The certificate chain stored with a key, as `signingCertificate` held it; null when none. */
export function certificateOfKey(
  key:
    | { chainPem: string | null; x5c: unknown; notBefore: Date | null; notAfter: Date | null }
    | null
    | undefined,
): StoredSigningCertificate | null {
  if (!key?.chainPem || !Array.isArray(key.x5c) || !key.notBefore || !key.notAfter) return null;
  return {
    chainPem: key.chainPem,
    x5c: key.x5c as string[],
    notBefore: key.notBefore.toISOString(),
    notAfter: key.notAfter.toISOString(),
  };
}

/** The certificate chain of the key the issuer signs with now; null when none. */
export function signingCertificateOf(row: WithIssuerKeys & { id: string }): StoredSigningCertificate | null {
  return certificateOfKey(currentSigningKeyOf(row));
}
