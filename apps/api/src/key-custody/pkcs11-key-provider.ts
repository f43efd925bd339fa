import { createHash, randomBytes } from "node:crypto";
import {
  type GeneratedKey,
  type GenerateKeyRequest,
  type HeldKey,
  type KeyProvider,
  type KeyProviderStatus,
  keyCustodyUnavailable,
  type StoredKeyReference,
} from "@cred/core";
import type { Es256Signer } from "@cred/oid4vc";
import type { JWK } from "jose";
// The binding is loaded here only so that a machine where it was not built fails at start (server.ts says
// why); no PKCS#11 call runs on this thread: the token's thread (./pkcs11-worker.mjs) makes them all.
import "pkcs11js";
import { ecPointOf, publicJwkOfPoint } from "./ec-point";
import {
  type Pkcs11Settings,
  Pkcs11Token,
  reasonOf,
  type TokenOperation,
  type TokenOperations,
} from "./pkcs11-token";
import { formatPkcs11Uri, parsePkcs11Uri } from "./pkcs11-uri";

/**
 * The `pkcs11` key provider: EC P-256 keys generated inside a PKCS#11 v2.40 token (CKA_SENSITIVE,
 * not CKA_EXTRACTABLE), used there by CKM_ECDSA (the SHA-256 digest is computed here; the token
 * returns r || s, the JWS form, PKCS#11 v2.40 §2.3.1) and CKM_ECDH1_DERIVE. A key row holds a PKCS#11
 * URI naming the token label and the key's CKA_ID (`providerKeyRef`); no private key material leaves
 * the token. Every call to the token runs in its own thread (`Pkcs11Token`), each operation at most
 * `timeoutMs`, so a token that hangs inside any call never stalls the event loop.
 */
export class Pkcs11KeyProvider implements KeyProvider {
  readonly name = "pkcs11" as const;
  private readonly token: Pkcs11Token;
  /** The token this provider makes keys in (`KeyCustody.lookup` routes by it). */
  private readonly label: string;

  /**
   * A provider for one token of the module `settings` name (default: its default token); `module` shares
   * the module's thread of a sibling provider (`forEachToken`).
   */
  constructor(settings: Pkcs11Settings, tokenLabel?: string, module?: Pkcs11Token) {
    this.token = module ?? new Pkcs11Token(settings);
    this.label = tokenLabel ?? settings.tokenLabel;
  }

  /**
   * One provider per token of the module (the default token's first), all on the module's one thread:
   * `KeyCustody.lookup` finds a token's provider by its label. Each provider also uses keys in its
   * sibling tokens (a key row names the token in its URI), so the name's default provider serves them all.
   */
  static forEachToken(settings: Pkcs11Settings): Pkcs11KeyProvider[] {
    const module = new Pkcs11Token(settings);
    return module.labels.map((label) => new Pkcs11KeyProvider(settings, label, module));
  }

  /** The token this provider makes keys in, by label (`KeyCustody.lookup` routes a custody choice by it). */
  get tokenLabels(): readonly string[] {
    return [this.label];
  }

  /** Runs an operation in the module's thread; an unreachable or late token is the 503 `KeyCustodyUnavailable`. */
  private async use<K extends TokenOperation>(
    op: K,
    args: TokenOperations[K]["args"],
    tokenLabel: string = this.label,
  ): Promise<TokenOperations[K]["result"]> {
    try {
      return await this.token.request(op, args, tokenLabel);
    } catch (error) {
      throw keyCustodyUnavailable(reasonOf(error));
    }
  }

  private locate(key: StoredKeyReference) {
    const location = key.providerKeyRef ? parsePkcs11Uri(key.providerKeyRef) : null;
    if (!location) throw new Error(`not a PKCS#11 key reference: ${key.providerKeyRef}`);
    if (!this.token.labels.includes(location.token))
      throw keyCustodyUnavailable(
        `the key is in the token '${location.token}', which this process is not configured with`,
      );
    return location;
  }

  async generate(request: GenerateKeyRequest): Promise<GeneratedKey> {
    const id = randomBytes(16);
    const point = await this.use("generate", {
      id,
      label: request.label.slice(0, 128),
      usage: request.usage,
    });
    return {
      publicJwk: publicJwkOfPoint(ecPointOf(Buffer.from(point)), request.usage),
      provider: "pkcs11",
      providerKeyRef: formatPkcs11Uri({ token: this.label, id }),
      privateKeyCipher: null,
    };
  }

  async signingKey(key: StoredKeyReference): Promise<Es256Signer> {
    const { id, token } = this.locate(key);
    return {
      signEs256: async (signingInput) => {
        const digest = createHash("sha256").update(signingInput).digest();
        const signature = await this.use("sign", { id, digest }, token);
        if (signature.length !== 64)
          throw keyCustodyUnavailable("the token's ECDSA signature is not 64 bytes (r || s)");
        return new Uint8Array(signature);
      },
    };
  }

  async publicJwk(key: StoredKeyReference): Promise<JWK> {
    const { id, token } = this.locate(key);
    const { point, canSign } = await this.use("publicKey", { id }, token);
    return publicJwkOfPoint(ecPointOf(Buffer.from(point)), canSign ? "sign" : "derive");
  }

  async deriveSharedSecret(key: StoredKeyReference, peerPoint: Uint8Array): Promise<Uint8Array> {
    const { id, token } = this.locate(key);
    return new Uint8Array(await this.use("derive", { id, peerPoint }, token));
  }

  async destroy(key: StoredKeyReference): Promise<void> {
    const { id, token } = this.locate(key);
    await this.use("destroy", { id }, token);
  }

  /** Whether the token answers: the token `key` is in (a sibling token of the module), else this provider's. */
  async status(key?: StoredKeyReference): Promise<KeyProviderStatus> {
    const keyToken = key?.providerKeyRef ? parsePkcs11Uri(key.providerKeyRef)?.token : undefined;
    const label = keyToken && this.token.labels.includes(keyToken) ? keyToken : this.label;
    const location = `PKCS#11 token '${label}'`;
    const { reachable, reason } = await this.token.reachable(label);
    return { reachable, location, ...(reason ? { reason } : {}) };
  }

  async holds(key: StoredKeyReference): Promise<boolean> {
    try {
      await this.publicJwk(key);
      return true;
    } catch {
      return false;
    }
  }

  /** Every key pair in every token of the module, by token and CKA_ID, with its label (the CLI's `keys list`). */
  async listKeys(): Promise<HeldKey[]> {
    const held: HeldKey[] = [];
    for (const token of this.token.labels) {
      const keys = await this.use("list", {}, token);
      for (const { id, label } of keys)
        held.push({ providerKeyRef: formatPkcs11Uri({ token, id: Buffer.from(id) }), label });
    }
    return held;
  }

  /** Closes the module's thread (shared with the sibling providers; closing it again does nothing). */
  close(): Promise<void> {
    return this.token.close();
  }
}
