import { createECDH } from "node:crypto";
import { generateEs256KeyPair, importEs256PrivateKey, toPublicJwk } from "@cred/oid4vc";
import type { JWK } from "jose";
import type {
  GeneratedKey,
  GenerateKeyRequest,
  KeyProvider,
  KeyProviderStatus,
  StoredKeyReference,
} from "./key-custody";
import type { SecretBox } from "./secret-box";

/**
 * The `software` provider: keys made in the process, their private JWK sealed under the master key in
 * the key row (`privateKeyCipher`, bound to `sealedFor`), exactly as every key was stored before key
 * providers existed, so existing rows need no change.
 */
export class SoftwareKeyProvider implements KeyProvider {
  readonly name = "software" as const;
  constructor(private readonly secretBox: SecretBox) {}

  async generate(request: GenerateKeyRequest): Promise<GeneratedKey> {
    const { privateJwk, publicJwk } = await generateEs256KeyPair();
    return {
      publicJwk: publicJwk as JWK & { kid: string },
      provider: "software",
      providerKeyRef: null,
      privateKeyCipher: this.secretBox.seal(JSON.stringify(privateJwk), request.sealedFor),
    };
  }

  private open(key: StoredKeyReference): JWK {
    if (key.privateKeyCipher === null) throw new Error("The key's private part was discarded.");
    return JSON.parse(this.secretBox.open(key.privateKeyCipher, key.sealedFor)) as JWK;
  }

  signingKey(key: StoredKeyReference) {
    return importEs256PrivateKey(this.open(key));
  }

  async publicJwk(key: StoredKeyReference): Promise<JWK> {
    return toPublicJwk(this.open(key));
  }

  async deriveSharedSecret(key: StoredKeyReference, peerPoint: Uint8Array): Promise<Uint8Array> {
    const ecdh = createECDH("prime256v1");
    ecdh.setPrivateKey(Buffer.from(this.open(key).d as string, "base64url"));
    return ecdh.computeSecret(peerPoint);
  }

  /** The sealed value goes with its row; nothing is held elsewhere. */
  async destroy(): Promise<void> {}

  async status(): Promise<KeyProviderStatus> {
    return { reachable: true, location: "database, sealed under the master key" };
  }

  async holds(key: StoredKeyReference): Promise<boolean> {
    return key.privateKeyCipher !== null;
  }
}
