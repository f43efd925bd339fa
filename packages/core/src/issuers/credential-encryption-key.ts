import type { TCredentialEncryptionSettings } from "@cred/contracts/issuers";
import { type FastSql, Prisma } from "@cred/db";
import {
  type CredentialEncryptionKey,
  generateResponseEncryptionKey,
  type Jwk,
  type P256PrivateScalar,
} from "@cred/oid4vc";
import { BoundedMap } from "../shared/bounded-map";
import type { SecretBox } from "../shared/secret-box";

/** As stored in `Issuer.credentialEncryption`. */
interface StoredCredentialEncryption {
  required: boolean;
  publicJwk: Jwk & { kid: string };
}

/** As stored in `Issuer.previousCredentialEncryption`: the key a rotation replaced, and until when it decrypts. */
interface StoredPreviousKey {
  publicJwk: Jwk & { kid: string };
  acceptedUntil: string;
}

interface EncryptionColumns {
  credentialEncryption: unknown;
  credentialEncryptionKeyCipher: string | null;
  previousCredentialEncryption: unknown;
  previousCredentialEncryptionKeyCipher: string | null;
}

/** The issuer's encryption settings and public key, or null when it offers no encryption. */
export function credentialEncryptionOf(row: {
  credentialEncryption: unknown;
}): StoredCredentialEncryption | null {
  const stored = row.credentialEncryption as StoredCredentialEncryption | null;
  if (typeof stored?.required !== "boolean" || typeof stored.publicJwk?.kid !== "string") return null;
  return stored;
}

/** The replaced key while it still decrypts, or null. */
export function previousCredentialEncryptionOf(
  row: { previousCredentialEncryption: unknown },
  now = Date.now(),
): StoredPreviousKey | null {
  const stored = row.previousCredentialEncryption as StoredPreviousKey | null;
  if (typeof stored?.publicJwk?.kid !== "string" || typeof stored.acceptedUntil !== "string") return null;
  return Date.parse(stored.acceptedUntil) > now ? stored : null;
}

/** The sealing context of the keys: bound to the issuer and to this use, apart from its signing key. */
export const credentialEncryptionSealContext = (issuerId: string) => `${issuerId}/credential-encryption`;

const NO_PREVIOUS = {
  previousCredentialEncryption: Prisma.DbNull,
  previousCredentialEncryptionKeyCipher: null,
};

function freshKey(secretBox: SecretBox, issuerId: string) {
  const { publicJwk, privateJwk } = generateResponseEncryptionKey();
  return {
    publicJwk: publicJwk as StoredCredentialEncryption["publicJwk"],
    cipher: secretBox.seal(JSON.stringify(privateJwk), credentialEncryptionSealContext(issuerId)),
  };
}

/**
 * The columns for new settings: `null` clears them all (the keys are discarded); settings keep the
 * current key and change `required`, or make a fresh ECDH-ES P-256 key when there is none.
 */
export function credentialEncryptionColumns(
  secretBox: SecretBox,
  issuerId: string,
  current: EncryptionColumns | null,
  settings: TCredentialEncryptionSettings | null,
) {
  if (settings === null) {
    return { credentialEncryption: Prisma.DbNull, credentialEncryptionKeyCipher: null, ...NO_PREVIOUS };
  }
  const kept = current ? credentialEncryptionOf(current) : null;
  if (kept && current?.credentialEncryptionKeyCipher) {
    return {
      credentialEncryption: { required: settings.required, publicJwk: kept.publicJwk },
      credentialEncryptionKeyCipher: current.credentialEncryptionKeyCipher,
      // A replaced key past its overlap leaves the row (its sealed private half with it).
      ...(previousCredentialEncryptionOf(current) ? {} : NO_PREVIOUS),
    };
  }
  const key = freshKey(secretBox, issuerId);
  return {
    credentialEncryption: { required: settings.required, publicJwk: key.publicJwk },
    credentialEncryptionKeyCipher: key.cipher,
    ...NO_PREVIOUS,
  };
}

/**
 * The columns of a rotation: a fresh key is published, and the replaced one keeps decrypting for
 * `overlapSeconds` (requests of wallets that read the metadata before), or not at all with 0. Null when
 * the issuer offers no encryption.
 */
export function rotatedCredentialEncryptionColumns(
  secretBox: SecretBox,
  issuerId: string,
  current: EncryptionColumns,
  overlapSeconds: number,
  now = Date.now(),
) {
  const settings = credentialEncryptionOf(current);
  if (!settings || !current.credentialEncryptionKeyCipher) return null;
  const key = freshKey(secretBox, issuerId);
  const previous =
    overlapSeconds > 0
      ? {
          previousCredentialEncryption: {
            publicJwk: settings.publicJwk,
            acceptedUntil: new Date(now + overlapSeconds * 1000).toISOString(),
          },
          previousCredentialEncryptionKeyCipher: current.credentialEncryptionKeyCipher,
        }
      : NO_PREVIOUS;
  return {
    credentialEncryption: { required: settings.required, publicJwk: key.publicJwk },
    credentialEncryptionKeyCipher: key.cipher,
    ...previous,
  };
}

/** Opened keys by issuer, with the ciphertexts they came from (a new key has a new one). */
const opened = new BoundedMap<string, { ciphers: string; keys: CredentialEncryptionKey[] }>(256);

/**
 * The issuer's keys to decrypt credential requests with: the current one first, then a replaced one
 * while it still decrypts; empty when the issuer offers no encryption. Opened keys are kept per issuer,
 * so a request does not unseal them again; they are dropped when the issuer's settings change (here at
 * once, `forgetCredentialEncryptionKey`; in other processes at their next request for the issuer).
 */
export function credentialEncryptionKeys(
  secretBox: SecretBox,
  row: EncryptionColumns & { id: string },
  now = Date.now(),
): CredentialEncryptionKey[] {
  const settings = credentialEncryptionOf(row);
  const cipher = row.credentialEncryptionKeyCipher;
  if (!settings || !cipher) {
    opened.delete(row.id);
    return [];
  }
  const previous = previousCredentialEncryptionOf(row, now);
  const previousCipher = previous ? row.previousCredentialEncryptionKeyCipher : null;
  const ciphers = `${cipher}|${previousCipher ?? ""}`;
  const kept = opened.get(row.id);
  if (kept?.ciphers === ciphers) return kept.keys;
  const open = (sealed: string) =>
    JSON.parse(secretBox.open(sealed, credentialEncryptionSealContext(row.id))) as P256PrivateScalar;
  const keys: CredentialEncryptionKey[] = [{ publicJwk: settings.publicJwk, privateJwk: open(cipher) }];
  if (previous && previousCipher)
    keys.push({ publicJwk: previous.publicJwk, privateJwk: open(previousCipher) });
  opened.set(row.id, { ciphers, keys });
  return keys;
}

/**
 * Clears replaced keys whose overlap ended before `now` from the issuer rows, sealed private halves
 * included; returns how many. Requests stopped taking them at `acceptedUntil` already (this only
 * clears what stays at rest), so the issuer's `updatedAt` is left alone: nothing it shows changes.
 */
export async function retireExpiredCredentialEncryptionKeys(sql: FastSql, now: Date): Promise<number> {
  const { rows } = await sql.query(
    `UPDATE "Issuer" SET "previousCredentialEncryption" = NULL, "previousCredentialEncryptionKeyCipher" = NULL
      WHERE "previousCredentialEncryptionKeyCipher" IS NOT NULL
        AND ("previousCredentialEncryption"->>'acceptedUntil')::timestamptz <= $1::timestamptz
      RETURNING 1`,
    [now],
  );
  return rows.length;
}

/** Drops the opened keys of an issuer whose settings changed, so the private keys leave the heap. */
export function forgetCredentialEncryptionKey(issuerId: string) {
  opened.delete(issuerId);
}

/** The Issuer resource's `credentialEncryption`: settings, the published key, and a replaced one still accepted. */
export function credentialEncryptionDto(row: EncryptionColumns) {
  const settings = credentialEncryptionOf(row);
  if (!settings) return null;
  const previous = previousCredentialEncryptionOf(row);
  return {
    required: settings.required,
    publicJwk: settings.publicJwk as Record<string, unknown>,
    previousKey: previous
      ? { publicJwk: previous.publicJwk as Record<string, unknown>, acceptedUntil: previous.acceptedUntil }
      : null,
  };
}
