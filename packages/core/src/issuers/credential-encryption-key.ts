import type { TCredentialEncryptionSettings } from "@cred/contracts/issuers";
import type { UnitOfWork } from "@cred/db";
import {
  type CredentialEncryptionKey,
  generateResponseEncryptionKey,
  type Jwk,
  type P256PrivateScalar,
} from "@cred/oid4vc";
import type { Caches } from "../shared/caches";
import type { KeyCustody, StoredKeyReference } from "../shared/key-custody";
import type { TenantScope } from "../shared/principal";
import type { SecretBox } from "../shared/secret-box";
import { credentialEncryptionKeysCache } from "./issuer-caches";
import { destroyAfterCommit } from "./issuer-key-custody";
import { custodyOf } from "./issuer-key-custody-purposes";
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

/** What making, using and discarding request encryption keys needs. */
export interface CredentialEncryptionDeps {
  secretBox: SecretBox;
  caches: Caches;
  keyCustody: KeyCustody;
}

/** A software key: the private scalar sealed under the master key, bound to the issuer's encryption context. */
function softwareKey(secretBox: SecretBox, issuerId: string): NewIssuerKey {
  const { publicJwk, privateJwk } = generateResponseEncryptionKey();
  return {
    kid: (publicJwk as { kid: string }).kid,
    publicJwk: publicJwk as unknown as Record<string, unknown>,
    privateKeyCipher: secretBox.seal(JSON.stringify(privateJwk), credentialEncryptionSealContext(issuerId)),
  };
}

/**
 * A fresh ECDH-ES P-256 request encryption key, made by the provider the issuer's custody names for
 * request encryption:
 * `software` as before (the sealed scalar), `pkcs11` inside the token (CKA_DERIVE, not extractable).
 * A provider's key is the caller's to destroy when it is not stored (`discardMintedOnFailure`).
 */
export async function generateCredentialEncryptionKey(
  deps: Pick<CredentialEncryptionDeps, "secretBox" | "keyCustody">,
  issuer: { id: string; keyProvider: string; keyCustodyPurposes: unknown },
): Promise<NewIssuerKey> {
  const custody = custodyOf(issuer, "credential_request_encryption");
  if (custody.provider === "software") return softwareKey(deps.secretBox, issuer.id);
  const generated = await deps.keyCustody.providerFor(custody).generate({
    usage: "derive",
    sealedFor: credentialEncryptionSealContext(issuer.id),
    label: `${issuer.id} credential_request_encryption`,
  });
  return {
    kid: generated.publicJwk.kid,
    publicJwk: generated.publicJwk as Record<string, unknown>,
    privateKeyCipher: generated.privateKeyCipher,
    provider: generated.provider,
    providerKeyRef: generated.providerKeyRef,
  };
}

/** How a request encryption key row refers to its private key, for its provider. */
function storedEncryptionKeyOf(key: IssuerKeyRow): StoredKeyReference {
  return {
    provider: key.provider,
    providerKeyRef: key.providerKeyRef,
    privateKeyCipher: key.privateKeyCipher,
    sealedFor: credentialEncryptionSealContext(key.issuerId),
  };
}

/** Whether the key's private part is at hand (sealed here or held by a provider). */
const hasPrivatePart = (key: IssuerKeyRow | null | undefined) =>
  !!key && (key.privateKeyCipher !== null || key.providerKeyRef !== null);

/** Drops rows of the issuer's encryption keys in `states`, their HSM keys destroyed once committed. */
async function deleteEncryptionKeys(
  tx: UnitOfWork,
  deps: CredentialEncryptionDeps,
  issuer: TenantScope & { issuerId: string },
  current: WithIssuerKeys | null,
  states: ("next" | "current" | "retired")[],
) {
  const scope = { tenantId: issuer.tenantId, environment: issuer.environment };
  destroyAfterCommit(
    tx,
    deps,
    (current?.keys ?? []).filter(
      (key) => key.purpose === "credential_request_encryption" && states.includes(key.state as never),
    ),
  );
  await issuerKeyRepository.deleteInStates(
    tx,
    deps.caches,
    scope,
    issuer.issuerId,
    "credential_request_encryption",
    states,
  );
}

/**
 * New settings, under the issuer's row lock: `null` discards the keys; settings keep the current key
 * and change `required`, or make a fresh ECDH-ES P-256 key when there is none. Returns the value of
 * `Issuer.credentialEncryption`, which the caller writes.
 */
export async function applyCredentialEncryptionSettings(
  tx: UnitOfWork,
  deps: CredentialEncryptionDeps,
  issuer: TenantScope & { issuerId: string },
  current: WithIssuerKeys | null,
  settings: TCredentialEncryptionSettings | null,
  now = new Date(),
  freshKey: () => Promise<NewIssuerKey> = async () => softwareKey(deps.secretBox, issuer.issuerId),
): Promise<StoredCredentialEncryptionSettings | null> {
  const purpose = "credential_request_encryption";
  if (settings === null) {
    await deleteEncryptionKeys(tx, deps, issuer, current, ["next", "current", "retired"]);
    return null;
  }
  if (current && currentEncryptionKeyOf(current)) {
    // A replaced key past its overlap goes (its private half with it).
    if (!acceptedRetiredEncryptionKeyOf(current, now.getTime()))
      await deleteEncryptionKeys(tx, deps, issuer, current, ["retired"]);
    return { required: settings.required };
  }
  if (current) await deleteEncryptionKeys(tx, deps, issuer, current, ["next", "current", "retired"]);
  await issuerKeyRepository.create(tx, deps.caches, issuer, purpose, "current", await freshKey(), now);
  return { required: settings.required };
}

/**
 * A rotation, under the issuer's row lock: a fresh key is published, and the replaced one keeps
 * decrypting for `overlapSeconds` (requests of wallets that read the metadata before), or not at all
 * with 0; a key replaced earlier goes. False when the issuer offers no encryption.
 */
export async function rotateCredentialEncryptionKeys(
  tx: UnitOfWork,
  deps: CredentialEncryptionDeps,
  issuer: TenantScope & { issuerId: string },
  current: EncryptionRow,
  overlapSeconds: number,
  now = new Date(),
  freshKey: () => Promise<NewIssuerKey> = async () => softwareKey(deps.secretBox, issuer.issuerId),
): Promise<boolean> {
  const key = currentEncryptionKeyOf(current);
  if (!credentialEncryptionOf(current) || !key || !hasPrivatePart(key)) return false;
  const keep = overlapSeconds > 0;
  // Keys replaced earlier go now, and the current one too when it is not kept decrypting.
  destroyAfterCommit(
    tx,
    deps,
    current.keys.filter(
      (row) =>
        row.purpose === "credential_request_encryption" &&
        (row.state === "retired" || (!keep && row.id === key.id)),
    ),
  );
  await issuerKeyRepository.switchEncryptionKey(
    tx,
    deps.caches,
    issuer,
    {
      keyId: key.id,
      acceptedUntil: keep ? new Date(now.getTime() + overlapSeconds * 1000) : null,
    },
    await freshKey(),
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
  deps: CredentialEncryptionDeps,
  row: EncryptionRow & { id: string },
  now = Date.now(),
): CredentialEncryptionKey[] {
  const opened = deps.caches.of(credentialEncryptionKeysCache);
  const settings = credentialEncryptionOf(row);
  const current = currentEncryptionKeyOf(row);
  if (!settings || !current || !hasPrivatePart(current)) {
    opened.delete(row.id);
    return [];
  }
  const previous = acceptedRetiredEncryptionKeyOf(row, now);
  const usable = hasPrivatePart(previous) ? [current, previous!] : [current];
  const held = usable.map((key) => key.privateKeyCipher ?? key.providerKeyRef).join("|");
  const kept = opened.peek(row.id);
  if (kept?.ciphers === held) return kept.keys;
  const keys = usable.map((key) => decryptingKey(deps, key));
  opened.set(row.id, { ciphers: held, keys });
  return keys;
}

/**
 * What decrypts to one key: the opened private scalar of a sealed key, or the key agreement of its
 * provider (a PKCS#11 token derives the shared secret; the private key stays there).
 */
function decryptingKey(deps: CredentialEncryptionDeps, key: IssuerKeyRow): CredentialEncryptionKey {
  const publicJwk = publicJwkOf(key);
  const stored = storedEncryptionKeyOf(key);
  if (stored.providerKeyRef === null) {
    const sealed = stored.privateKeyCipher!;
    return {
      publicJwk,
      privateJwk: JSON.parse(deps.secretBox.open(sealed, stored.sealedFor)) as P256PrivateScalar,
    };
  }
  return {
    publicJwk,
    deriveSharedSecret: (senderPoint) => deps.keyCustody.of(stored).deriveSharedSecret(stored, senderPoint),
  };
}

/**
 * Removes replaced keys whose overlap ended before `now`, sealed private halves included (keys in an
 * HSM are destroyed there); returns how many. Requests stopped taking them at `acceptedUntil` already (this only clears what stays at rest),
 * so the issuer's `updatedAt` is left alone: nothing it shows changes.
 */
export async function retireExpiredCredentialEncryptionKeys(
  deps: Pick<CredentialEncryptionDeps, "keyCustody">,
  db: UnitOfWork,
  now: Date,
): Promise<number> {
  const removed = await issuerKeyRepository.deleteExpiredEncryptionKeys(db, now);
  // Keys in an HSM go from it too (at once at the root, after the commit inside a transaction).
  destroyAfterCommit(db, deps, removed);
  return removed.length;
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
