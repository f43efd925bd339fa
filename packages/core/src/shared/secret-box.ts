import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  timingSafeEqual,
} from "node:crypto";
import { pooledRandomBytes } from "@cred/oid4vc";

/**
 * AES-256-GCM for secrets at rest (signing keys, webhook secrets, pending claims), under the master key.
 *
 * Rotating the master key: the new key seals, and the keys it replaces (`previousKeys`) still open what
 * they sealed — and still accept their MACs — until `resealSecrets` has sealed everything again under the
 * new key. A sealed value names no key; opening tries the current key first, so a rotation costs nothing
 * once it is over.
 */
export class SecretBox {
  private readonly keys: Buffer[];
  private readonly macKeys = new Map<string, Buffer[]>();
  constructor(masterKey: Buffer, previousKeys: readonly Buffer[] = []) {
    for (const key of [masterKey, ...previousKeys]) {
      if (key.length !== 32) throw new Error("The master key must be 32 bytes.");
    }
    this.keys = [masterKey, ...previousKeys.filter((key) => !key.equals(masterKey))];
  }

  /**
   * The public name of the current master key (48 bits of a MAC of nothing under a subkey of its own:
   * it says nothing of the key), so that records can tell which key a reseal sealed under.
   */
  get currentKeyTag(): string {
    return this.keyTags("master key")[0] as string;
  }

  /** How many replaced master keys still open values (0 once a rotation is finished). */
  get previousKeyCount(): number {
    return this.keys.length - 1;
  }

  seal(plaintext: string, associatedData = ""): string {
    const iv = pooledRandomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.current, iv);
    cipher.setAAD(Buffer.from(associatedData));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return `v1.${iv.toString("base64url")}.${body.toString("base64url")}.${cipher.getAuthTag().toString("base64url")}`;
  }

  /** HMAC-SHA256 under a subkey of the master key derived for `purpose` (HKDF), so purposes never share a key. */
  mac(purpose: string, data: Buffer): Buffer {
    return createHmac("sha256", this.macKeysFor(purpose)[0] as Buffer)
      .update(data)
      .digest();
  }

  /** Whether `tag` is the (possibly truncated) MAC of `data` under the current or a previous master key. */
  macMatches(purpose: string, data: Buffer, tag: Buffer): boolean {
    if (tag.length === 0 || tag.length > 32) return false; // 32: the length of an HMAC-SHA256
    return this.macKeysFor(purpose).some((subkey) => {
      const expected = createHmac("sha256", subkey).update(data).digest().subarray(0, tag.length);
      return timingSafeEqual(expected, tag);
    });
  }

  /**
   * A keyed hash of a low-entropy secret (a 6-digit tx_code) for storage, where a plain SHA-256 would
   * fall to a dictionary in moments: `k1.<key tag>.<HMAC-SHA256>` (base64url) under the current master
   * key's subkey for `purpose` (HKDF). The key tag names the master key that made it, so that a rotation
   * can count what only a previous key verifies: a hash cannot be made again under the new key without
   * the secret.
   */
  keyedHash(purpose: string, secret: string): string {
    const mac = createHmac("sha256", this.macKeysFor(purpose)[0] as Buffer)
      .update(secret, "utf8")
      .digest("base64url");
    return `${KEYED_HASH_VERSION}.${this.keyTags(purpose)[0]}.${mac}`;
  }

  /**
   * Whether `stored` is the keyed hash of `secret` (see `keyedHash`) under the current master key or a
   * previous one (during a rotation), compared in constant time. False for anything else.
   */
  keyedHashMatches(purpose: string, secret: string, stored: string): boolean {
    const index = this.keyedHashKeyIndex(purpose, stored);
    if (index === null) return false;
    const subkey = this.macKeysFor(purpose)[index] as Buffer;
    const expected = createHmac("sha256", subkey).update(secret, "utf8").digest();
    const given = Buffer.from(stored.slice(stored.lastIndexOf(".") + 1), "base64url");
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /**
   * Which master key made a keyed hash: 0 the current one, n the nth previous one; null when no
   * configured key did, or `stored` is not a keyed hash.
   */
  keyedHashKeyIndex(purpose: string, stored: string): number | null {
    const [version, tag, mac, ...rest] = stored.split(".");
    if (version !== KEYED_HASH_VERSION || !tag || !mac || rest.length > 0) return null;
    const index = this.keyTags(purpose).indexOf(tag);
    return index === -1 ? null : index;
  }

  /**
   * The public names of the master keys in keyed hashes for `purpose`, in key order: 48 bits of a MAC of
   * nothing under a subkey of their own (so a tag says nothing of the key, nor of any hash's input).
   */
  private keyTags(purpose: string): string[] {
    return this.macKeysFor(`key tag ${purpose}`).map((subkey) =>
      createHmac("sha256", subkey).digest().subarray(0, 6).toString("base64url"),
    );
  }

  open(sealed: string, associatedData = ""): string {
    return this.openWithKeyIndex(sealed, associatedData).plaintext;
  }

  /** The plaintext and which key opened it: 0 the current one, n the nth previous one. */
  openWithKeyIndex(sealed: string, associatedData = ""): { plaintext: string; keyIndex: number } {
    const [version, iv, body, tag] = sealed.split(".");
    if (version !== "v1" || !iv || !body || !tag) throw new Error("Unrecognised sealed secret.");
    let failure: unknown;
    for (const [keyIndex, key] of this.keys.entries()) {
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
        decipher.setAAD(Buffer.from(associatedData));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        const plaintext = Buffer.concat([
          decipher.update(Buffer.from(body, "base64url")),
          decipher.final(),
        ]).toString("utf8");
        return { plaintext, keyIndex };
      } catch (error) {
        failure ??= error;
      }
    }
    throw failure;
  }

  private get current(): Buffer {
    return this.keys[0] as Buffer;
  }

  private macKeysFor(purpose: string): Buffer[] {
    let subkeys = this.macKeys.get(purpose);
    if (!subkeys) {
      subkeys = this.keys.map((key) =>
        Buffer.from(hkdfSync("sha256", key, "", `cred-platform mac ${purpose}`, 32)),
      );
      this.macKeys.set(purpose, subkeys);
    }
    return subkeys;
  }
}

/** The version prefix of `SecretBox.keyedHash` values. */
const KEYED_HASH_VERSION = "k1";

/** Whether a stored hash is a `SecretBox.keyedHash` (else an unkeyed `hashSecret` from before). */
export function isKeyedHash(stored: string): boolean {
  return stored.startsWith(`${KEYED_HASH_VERSION}.`);
}

/** Hash of a high-entropy secret (API keys, codes, tokens): SHA-256 suffices, no stretching needed. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("base64url");
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
