import { Prisma } from "@cred/db";
import {
  type CredentialEncryptionKey,
  generateResponseEncryptionKey,
  type Jwk,
  type P256PrivateScalar,
} from "@cred/oid4vc";
import type { SecretBox } from "../shared/secret-box";
import type { TCredentialEncryptionSettings } from "./issuer.schema";

/** As stored in `Issuer.credentialEncryption`. */
interface StoredCredentialEncryption {
  required: boolean;
  publicJwk: Jwk & { kid: string };
}

interface EncryptionColumns {
  credentialEncryption: unknown;
  credentialEncryptionKeyCipher: string | null;
}

/** The issuer's encryption settings and public key, or null when it offers no encryption. */
export function credentialEncryptionOf(row: {
  credentialEncryption: unknown;
}): StoredCredentialEncryption | null {
  const stored = row.credentialEncryption as StoredCredentialEncryption | null;
  if (typeof stored?.required !== "boolean" || typeof stored.publicJwk?.kid !== "string") return null;
  return stored;
}

/** The sealing context of the key: bound to the issuer and to this use, apart from its signing key. */
export const credentialEncryptionSealContext = (issuerId: string) => `${issuerId}/credential-encryption`;

/**
 * The columns for new settings: `null` clears both (the key is discarded); settings keep the current key
 * and change `required`, or make a fresh ECDH-ES P-256 key when there is none.
 */
export function credentialEncryptionColumns(
  secretBox: SecretBox,
  issuerId: string,
  current: EncryptionColumns | null,
  settings: TCredentialEncryptionSettings | null,
) {
  if (settings === null) return { credentialEncryption: Prisma.DbNull, credentialEncryptionKeyCipher: null };
  const kept = current ? credentialEncryptionOf(current) : null;
  if (kept && current?.credentialEncryptionKeyCipher) {
    return {
      credentialEncryption: { required: settings.required, publicJwk: kept.publicJwk },
      credentialEncryptionKeyCipher: current.credentialEncryptionKeyCipher,
    };
  }
  const { publicJwk, privateJwk } = generateResponseEncryptionKey();
  return {
    credentialEncryption: { required: settings.required, publicJwk },
    credentialEncryptionKeyCipher: secretBox.seal(
      JSON.stringify(privateJwk),
      credentialEncryptionSealContext(issuerId),
    ),
  };
}

/** Opened keys by issuer, with the ciphertext they came from (a new key has a new one). */
const opened = new Map<string, { cipher: string; key: CredentialEncryptionKey }>();
const MAX_OPENED = 256;

/**
 * The issuer's key to decrypt credential requests with, or undefined when it offers no encryption. An
 * opened key is kept per issuer, so a request does not unseal it again; it is dropped when the issuer
 * turns encryption off (here at once, `forgetCredentialEncryptionKey`; in other processes at their next
 * request for the issuer) or replaced when the key changes.
 */
export function credentialEncryptionKey(
  secretBox: SecretBox,
  row: EncryptionColumns & { id: string },
): CredentialEncryptionKey | undefined {
  const settings = credentialEncryptionOf(row);
  const cipher = row.credentialEncryptionKeyCipher;
  if (!settings || !cipher) {
    opened.delete(row.id);
    return undefined;
  }
  const kept = opened.get(row.id);
  if (kept?.cipher === cipher) return kept.key;
  const privateJwk = JSON.parse(
    secretBox.open(cipher, credentialEncryptionSealContext(row.id)),
  ) as P256PrivateScalar;
  const key = { publicJwk: settings.publicJwk, privateJwk };
  opened.delete(row.id);
  if (opened.size >= MAX_OPENED) opened.delete(opened.keys().next().value as string);
  opened.set(row.id, { cipher, key });
  return key;
}

/** Drops the opened key of an issuer whose settings changed, so the private key leaves the heap. */
export function forgetCredentialEncryptionKey(issuerId: string) {
  opened.delete(issuerId);
}
