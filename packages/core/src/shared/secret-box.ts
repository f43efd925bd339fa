import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  timingSafeEqual,
} from "node:crypto";
import { pooledRandomBytes } from "@cred/oid4vc";

/** AES-256-GCM for secrets at rest (signing keys, webhook secrets, pending claims). */
export class SecretBox {
  private readonly key: Buffer;
  private readonly macKeys = new Map<string, Buffer>();
  constructor(masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error("The master key must be 32 bytes.");
    this.key = masterKey;
  }

  seal(plaintext: string, associatedData = ""): string {
    const iv = pooledRandomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(associatedData));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return `v1.${iv.toString("base64url")}.${body.toString("base64url")}.${cipher.getAuthTag().toString("base64url")}`;
  }

  /** HMAC-SHA256 under a subkey of the master key derived for `purpose` (HKDF), so purposes never share a key. */
  mac(purpose: string, data: Buffer): Buffer {
    let subkey = this.macKeys.get(purpose);
    if (!subkey) {
      subkey = Buffer.from(hkdfSync("sha256", this.key, "", `cred-platform mac ${purpose}`, 32));
      this.macKeys.set(purpose, subkey);
    }
    return createHmac("sha256", subkey).update(data).digest();
  }

  open(sealed: string, associatedData = ""): string {
    const [version, iv, body, tag] = sealed.split(".");
    if (version !== "v1" || !iv || !body || !tag) throw new Error("Unrecognised sealed secret.");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(associatedData));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString(
      "utf8",
    );
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
