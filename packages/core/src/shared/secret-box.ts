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

/** Hash of a high-entropy secret (API keys, codes, tokens): SHA-256 suffices, no stretching needed. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("base64url");
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
