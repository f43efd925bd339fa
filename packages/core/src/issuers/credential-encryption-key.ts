import type { TCredentialEncryptionSettings } from "@cred/contracts/issuers";
import type { UnitOfWork } from "@cred/db";
import {
  type CredentialEncryptionKey,
  generateResponseEncryptionKey,
  type Jwk,
  type P256PrivateScalar,
} from "@cred/oid4vc";
import type { Caches } from "../shared/caches";
import type { TenantScope } from "../shared/principal";
import type { SecretBox } from "../shared/secret-box";
import { credentialEncryptionKeysCache } from "./issuer-caches";
import { issuerKeyRepository, type NewIssuerKey } from "./issuer-key-repository";
import {
  acceptedRetiredEncryptionKeyOf,
  currentEncryptionKeyOf,
  type IssuerKeyRow,
  type WithIssuerKeys,
} from "./issuer-keys";

/** As stored in `Issuer.credentialEncryption`: the settings; the keys are IssuerKey rows. */
interface StoredCredentialEncryptionSettings {
  required: boolean;
}

/** The settings with the key wallets encrypt to now. */
interface CredentialEncryption {
  required: boolean;
  publicJwk: Jwk & { kid: string };
}

type EncryptionRow = WithIssuerKeys & { credentialEncryption: unknown };

const publicJwkOf = (key: IssuerKeyRow) => key.publicJwk as unknown as Jwk & { kid: string };

/** The issuer's encryption settings and public key, or null when it offers no encryption. */
export function credentialEncryptionOf(row: EncryptionRow): CredentialEncryption | null {
  const stored = row.credentialEncryption as StoredCredentialEncryptionSettings | null;
  const key = currentEncryptionKeyOf(row);
  if (typeof stored?.required !== "boolean" || !key) return null;
  return { required: stored.required, publicJwk: publicJwkOf(key) };
}

/** The sealing context of the keys: bound to the issuer and to this use, apart from its signing key. */
export const credentialEncryptionSealContext = (issuerId: string) => `${issuerId}/credential-encryption`;

function freshKey(secretBox: SecretBox, issuerId: string): NewIssuerKey {
  const { publicJwk, privateJwk } = generateResponseEncryptionKey();
  return {
    kid: (publicJwk as { kid: string }).kid,
    publicJwk: publicJwk as unknown as Record<string, unknown>,
    privateKeyCipher: secretBox.seal(JSON.stringify(privateJwk), credentialEncryptionSealContext(issuerId)),
  };
}

/**
 * New settings, under the issuer's row lock: `null` discards the keys; settings keep the current key
 * and change `required`, or make a fresh ECDH-ES P-256 key when there is none. Returns the value of
 * `Issuer.credentialEncryption`, which the caller writes.
 */
export async function applyCredentialEncryptionSettings(
  tx: UnitOfWork,
  deps: { secretBox: SecretBox; caches: Caches },
  issuer: TenantScope & { issuerId: string },
  current: WithIssuerKeys | null,
  settings: TCredentialEncryptionSettings | null,
  now = new Date(),
): Promise<StoredCredentialEncryptionSettings | null> {
  const scope = { tenantId: issuer.tenantId, environment: issuer.environment };
  const purpose = "credential_request_encryption";
  if (settings === null) {
    await issuerKeyRepository.deleteInStates(tx, deps.caches, scope, issuer.issuerId, purpose, [
      "next",
      "current",
      "retired",
    ]);
    return null;
  }
  if (current && currentEncryptionKeyOf(current)) {
    // A replaced key past its overlap goes (its sealed private half with it).
    if (!acceptedRetiredEncryptionKeyOf(current, now.getTime()))
      await issuerKeyRepository.deleteInStates(tx, deps.caches, scope, issuer.issuerId, purpose, ["retired"]);
    return { required: settings.required };
  }
  if (current)
    await issuerKeyRepository.deleteInStates(tx, deps.caches, scope, issuer.issuerId, purpose, [
      "next",
      "current",
      "retired",
    ]);
  const key = freshKey(deps.secretBox, issuer.issuerId);
  await issuerKeyRepository.create(tx, deps.caches, issuer, purpose, "current", key, now);
  return { required: settings.required };
}

/**
 * A rotation, under the issuer's row lock: a fresh key is published, and the replaced one keeps
 * decrypting for `overlapSeconds` (requests of wallets that read the metadata before), or not at all
 * with 0; a key replaced earlier goes. False when the issuer offers no encryption.
 */
export async function rotateCredentialEncryptionKeys(
  tx: UnitOfWork,
  deps: { secretBox: SecretBox; caches: Caches },
  issuer: TenantScope & { issuerId: string },
  current: EncryptionRow,
  overlapSeconds: number,
  now = new Date(),
): Promise<boolean> {
  const key = currentEncryptionKeyOf(current);
  if (!credentialEncryptionOf(current) || !key?.privateKeyCipher) return false;
  await issuerKeyRepository.switchEncryptionKey(
    tx,
    deps.caches,
    issuer,
    {
      keyId: key.id,
      acceptedUntil: overlapSeconds > 0 ? new Date(now.getTime() + overlapSeconds * 1000) : null,
    },
    freshKey(deps.secretBox, issuer.issuerId),
    now,
  );
  return true;
}

/**
 * The issuer's keys to decrypt credential requests with: the current one first, then a replaced one
 * while it still decrypts; empty when the issuer offers no encryption. Opened keys are kept per issuer
 * (`credentialEncryptionKeysCache`), so a request does not unseal them again; they are dropped when the
 * issuer's keys change (here once committed; in other processes at their next request for the issuer).
 */
export function credentialEncryptionKeys(
  deps: { secretBox: SecretBox; caches: Caches },
  row: EncryptionRow & { id: string },
  now = Date.now(),
): CredentialEncryptionKey[] {
  const opened = deps.caches.of(credentialEncryptionKeysCache);
  const settings = credentialEncryptionOf(row);
  const cipher = currentEncryptionKeyOf(row)?.privateKeyCipher;
  if (!settings || !cipher) {
    opened.delete(row.id);
    return [];
  }
  const previous = acceptedRetiredEncryptionKeyOf(row, now);
  const previousCipher = previous?.privateKeyCipher ?? null;
  const ciphers = `${cipher}|${previousCipher ?? ""}`;
  const kept = opened.peek(row.id);
  if (kept?.ciphers === ciphers) return kept.keys;
  const open = (sealed: string) =>
    JSON.parse(deps.secretBox.open(sealed, credentialEncryptionSealContext(row.id))) as P256PrivateScalar;
  const keys: CredentialEncryptionKey[] = [{ publicJwk: settings.publicJwk, privateJwk: open(cipher) }];
  if (previous && previousCipher)
    keys.push({ publicJwk: publicJwkOf(previous), privateJwk: open(previousCipher) });
  opened.set(row.id, { ciphers, keys });
  return keys;
}

/**
 * Removes replaced keys whose overlap ended before `now`, sealed private halves included; returns how
 * many. Requests stopped taking them at `acceptedUntil` already (this only clears what stays at rest),
 * so the issuer's `updatedAt` is left alone: nothing it shows changes.
 */
export function retireExpiredCredentialEncryptionKeys(db: UnitOfWork, now: Date): Promise<number> {
  return issuerKeyRepository.deleteExpiredEncryptionKeys(db, now);
}

/** The Issuer resource's `credentialEncryption`: settings, the published key, and a replaced one still accepted. */
export function credentialEncryptionDto(row: EncryptionRow) {
  const settings = credentialEncryptionOf(row);
  if (!settings) return null;
  const previous = acceptedRetiredEncryptionKeyOf(row);
  return {
    required: settings.required,
    publicJwk: settings.publicJwk as Record<string, unknown>,
    previousKey: previous
      ? {
          publicJwk: previous.publicJwk as Record<string, unknown>,
          acceptedUntil: previous.acceptedUntil!.toISOString(),
        }
      : null,
  };
}
