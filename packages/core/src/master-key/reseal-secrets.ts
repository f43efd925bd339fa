import type { UnitOfWork } from "@cred/db";
import { TX_CODE_HASH_PURPOSE } from "../authorization-server";
import { credentialEncryptionSealContext, issuerKeyRepository } from "../issuers";
import { idempotencySealContext } from "../shared/idempotency";
import { isKeyedHash, type SecretBox } from "../shared/secret-box";
import { encryptionKeySealContext, resultSealContext, verifierKeySealContext } from "../verification";
import { type SealedRow, sealedValueRepository } from "./sealed-value-repository";

type Row = SealedRow;
/** Seals one value again if an older key sealed it; returns it unchanged if the current key did. */
type Reseal = (sealed: string, associatedData: string) => string;

/** One column that holds sealed values: where it is, and what each value in it is sealed to. */
interface SealedColumn {
  table: string;
  column: string;
  json?: boolean;
  /** Further columns the associated data is made of. */
  reads?: string[];
  /** The stored value with every sealed string in it passed through `reseal`. */
  reseal(value: unknown, row: Row, reseal: Reseal): unknown;
}

/** What an issuer key is sealed to: its issuer (signing keys), or that issuer's encryption context. */
const issuerKeySealContext = (row: Row) =>
  row.purpose === "credential_request_encryption"
    ? credentialEncryptionSealContext(row.issuerId as string)
    : (row.issuerId as string);

const sealedToId = (table: string, column: string): SealedColumn => ({
  table,
  column,
  reseal: (value, row, reseal) => reseal(value as string, row.id as string),
});

/** Every place a sealed value rests. A new sealed column must be added here, or a rotation loses it. */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  // Issuer keys of every purpose and state: a rotation changes a key's state, never moves its cipher.
  {
    table: "IssuerKey",
    column: "privateKeyCipher",
    reads: ["issuerId", "purpose"],
    reseal: (value, row, reseal) => reseal(value as string, issuerKeySealContext(row)),
  },
  sealedToId("IssuanceTransaction", "claimsCipher"),
  sealedToId("IssuanceTransaction", "offerCipher"),
  {
    table: "VerifierCertificate",
    column: "privateKeyCipher",
    reads: ["tenantId", "environment"],
    reseal: (value, row, reseal) =>
      reseal(
        value as string,
        verifierKeySealContext({ tenantId: row.tenantId as string, environment: row.environment as never }),
      ),
  },
  {
    // The key of an access-certificate request awaiting its certificate (same context as the key in use).
    table: "VerifierCertificate",
    column: "pendingPrivateKeyCipher",
    reads: ["tenantId", "environment"],
    reseal: (value, row, reseal) =>
      reseal(
        value as string,
        verifierKeySealContext({ tenantId: row.tenantId as string, environment: row.environment as never }),
      ),
  },
  {
    table: "VerificationSession",
    column: "encryptionKeyCipher",
    reseal: (value, row, reseal) => reseal(value as string, encryptionKeySealContext(row.id as string)),
  },
  {
    table: "VerificationSession",
    column: "resultCipher",
    reseal: (value, row, reseal) => reseal(value as string, resultSealContext(row.id as string)),
  },
  sealedToId("WebhookSubscription", "secretCipher"),
  sealedToId("WebhookSubscription", "previousSecretCipher"),
  {
    table: "WebhookSubscription",
    column: "previousSecrets",
    json: true,
    reseal: (value, row, reseal) =>
      Array.isArray(value)
        ? value.map((entry) =>
            typeof entry?.cipher === "string"
              ? { ...entry, cipher: reseal(entry.cipher, row.id as string) }
              : entry,
          )
        : value,
  },
  {
    table: "IdempotencyRecord",
    column: "responseBody",
    json: true,
    reads: ["tenantId", "environment", "operation", "key"],
    reseal: (value, row, reseal) => {
      const sealed = (value as { sealed?: unknown } | null)?.sealed;
      if (typeof sealed !== "string") return value; // a body stored before responses were sealed
      const context = idempotencySealContext(
        row.tenantId as string,
        row.environment as string,
        row.operation as string,
        row.key as string,
      );
      return { ...(value as object), sealed: reseal(sealed, context) };
    },
  },
];

/**
 * A column of keyed hashes (`SecretBox.keyedHash`): they cannot be sealed again, since the secret is
 * not stored, so a rotation only counts them. `live` is the SQL condition under which a row's hash can
 * still be used, and `usableUntil` the column that says until when.
 */
interface KeyedHashColumn {
  table: string;
  column: string;
  purpose: string;
  live: string;
  usableUntil: string;
}

/** Every place a keyed hash rests. */
export const KEYED_HASH_COLUMNS: readonly KeyedHashColumn[] = [
  {
    table: "IssuanceTransaction",
    column: "txCodeHash",
    purpose: TX_CODE_HASH_PURPOSE,
    // A tx_code is asked for until the pre-authorized code is redeemed or the offer ends.
    live: `"preAuthorizedCodeHash" IS NOT NULL AND "codeRedeemedAt" IS NULL AND "status" = 'pending' AND "expiresAt" > $1::timestamp(3)`,
    usableUntil: "expiresAt",
  },
];

/** What a master key rotation finds in a column of keyed hashes, of rows that can still use them. */
export interface KeyedHashCount {
  table: string;
  column: string;
  /** Made under the current master key. */
  current: number;
  /**
   * Made under a previous master key: they verify only while PREVIOUS_MASTER_KEYS holds it, and cannot
   * be made again under the current one.
   */
  previous: number;
  /** When the last of `previous` stops being usable (ISO), or null when there are none. */
  previousUsableUntil: string | null;
  /** Made before hashes were keyed (a plain SHA-256): no master key is involved. */
  unkeyed: number;
  /** Made under no configured key: they no longer verify. */
  unknownKey: number;
}

export interface ResealCount {
  table: string;
  column: string;
  /** Values already sealed under the current master key. */
  current: number;
  /** Values a previous key had sealed (sealed again under the current one unless `dryRun`). */
  resealed: number;
  /** Values no configured key opens: they are left as they are and named in `unreadable`. */
  unreadable: number;
  /** Values the service rewrote between read and write: left to the service; run `check` again. */
  changedMeanwhile: number;
}

export interface ResealReport {
  columns: ResealCount[];
  /** Keyed hashes still in use, by the key that made them (counted; a reseal cannot redo them). */
  keyedHashes: KeyedHashCount[];
  /** Up to 20 `Table.column id` of values no configured key opens. */
  unreadable: string[];
  dryRun: boolean;
}

const PAGE = 200;

/**
 * Seals every value at rest again under the current master key (step 3 of a master key rotation, see
 * docs/operations.md). Rows are read a page at a time and each changed value is written back only if
 * it is still what was read, so a value the service rewrote meanwhile (under the current key) is kept;
 * a run can be interrupted and started again. With `dryRun`, it only counts.
 */
export async function resealSecrets(
  db: UnitOfWork,
  secretBox: SecretBox,
  options: { dryRun?: boolean } = {},
): Promise<ResealReport> {
  const report: ResealReport = {
    columns: [],
    keyedHashes: await countKeyedHashes(db, secretBox),
    unreadable: [],
    dryRun: options.dryRun ?? false,
  };
  for (const sealed of SEALED_COLUMNS) {
    const count: ResealCount = {
      table: sealed.table,
      column: sealed.column,
      current: 0,
      resealed: 0,
      unreadable: 0,
      changedMeanwhile: 0,
    };
    let after = "";
    for (;;) {
      const rows = await sealedValueRepository.sealedPage(db, sealed, after, PAGE);
      for (const row of rows) {
        const stored = row[sealed.column];
        const value = sealed.json && typeof stored === "string" ? JSON.parse(stored) : stored;
        const seen = { resealed: false, unreadable: false };
        const resealed = sealed.reseal(value, row, (cipher, associatedData) => {
          let opened: { plaintext: string; keyIndex: number };
          try {
            opened = secretBox.openWithKeyIndex(cipher, associatedData);
          } catch {
            seen.unreadable = true;
            return cipher;
          }
          if (opened.keyIndex === 0) return cipher;
          seen.resealed = true;
          return secretBox.seal(opened.plaintext, associatedData);
        });
        const outcome = seen.unreadable ? "unreadable" : seen.resealed ? "resealed" : "current";
        if (seen.unreadable && report.unreadable.length < 20) {
          report.unreadable.push(`${sealed.table}.${sealed.column} ${row.id}`);
        }
        // A list with an unreadable entry still has its readable ones sealed again.
        if (!seen.resealed || report.dryRun) {
          count[outcome] += 1;
          continue;
        }
        const written = await sealedValueRepository.replaceIfUnchanged(db, sealed, row.id, resealed, value);
        count[written ? outcome : "changedMeanwhile"] += 1;
      }
      if (rows.length < PAGE) break;
      after = (rows.at(-1) as Row).id as string;
    }
    report.columns.push(count);
  }
  return report;
}

/**
 * Counts the keyed hashes still in use by the master key that made them. A hash under a previous key
 * cannot be made again under the current one (the secret is not stored): it keeps verifying only while
 * PREVIOUS_MASTER_KEYS holds that key, so a rotation keeps it there until `previousUsableUntil`.
 */
export async function countKeyedHashes(
  db: UnitOfWork,
  secretBox: SecretBox,
  now = new Date(),
): Promise<KeyedHashCount[]> {
  const counts: KeyedHashCount[] = [];
  for (const keyed of KEYED_HASH_COLUMNS) {
    const count: KeyedHashCount = {
      table: keyed.table,
      column: keyed.column,
      current: 0,
      previous: 0,
      previousUsableUntil: null,
      unkeyed: 0,
      unknownKey: 0,
    };
    let after = "";
    for (;;) {
      const rows = await sealedValueRepository.keyedHashPage(db, keyed, now, after, PAGE);
      for (const row of rows) {
        const hash = row.hash as string;
        if (!isKeyedHash(hash)) {
          count.unkeyed += 1;
          continue;
        }
        const keyIndex = secretBox.keyedHashKeyIndex(keyed.purpose, hash);
        if (keyIndex === 0) count.current += 1;
        else if (keyIndex === null) count.unknownKey += 1;
        else {
          count.previous += 1;
          const until = new Date(row.until as Date | string).toISOString();
          if (count.previousUsableUntil === null || until > count.previousUsableUntil)
            count.previousUsableUntil = until;
        }
      }
      if (rows.length < PAGE) break;
      after = (rows.at(-1) as Row).id as string;
    }
    counts.push(count);
  }
  return counts;
}

/**
 * The issuer whose sealed signing key the master key does not open, or null (also with no issuer yet):
 * the composition root checks one key at start, so a wrong MASTER_KEY fails there, not at issuance.
 */
export async function issuerKeyMasterKeyCannotOpen(
  db: UnitOfWork,
  secretBox: SecretBox,
): Promise<string | null> {
  const sealed = await issuerKeyRepository.findAnySealedSigningKey(db);
  if (!sealed?.privateKeyCipher) return null;
  try {
    secretBox.open(sealed.privateKeyCipher, sealed.issuerId);
    return null;
  } catch {
    return sealed.issuerId;
  }
}
