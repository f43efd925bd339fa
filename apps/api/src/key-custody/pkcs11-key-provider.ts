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
import pkcs11js from "pkcs11js";
import { ecPointOf, publicJwkOfPoint } from "./ec-point";
import { KeyNotInTokenError, type Pkcs11Settings, Pkcs11Token, reasonOf } from "./pkcs11-token";
import { formatPkcs11Uri, parsePkcs11Uri } from "./pkcs11-uri";

/** DER of the OID of P-256 (prime256v1, 1.2.840.10045.3.1.7): CKA_EC_PARAMS of every key made here. */
const P256_PARAMS = Buffer.from("06082a8648ce3d030107", "hex");

/**
 * The `pkcs11` key provider: EC P-256 keys generated inside a PKCS#11 v2.40 token (CKA_SENSITIVE,
 * not CKA_EXTRACTABLE), used there by CKM_ECDSA (the SHA-256 digest is computed here; the token
 * returns r || s, the JWS form, PKCS#11 v2.40 §2.3.1) and CKM_ECDH1_DERIVE. A key row holds a PKCS#11
 * URI naming the token label and the key's CKA_ID (`providerKeyRef`); no private key material leaves
 * the token.
 */
export class Pkcs11KeyProvider implements KeyProvider {
  readonly name = "pkcs11" as const;
  private readonly token: Pkcs11Token;

  constructor(settings: Pkcs11Settings) {
    this.token = new Pkcs11Token(settings);
  }

  /** The token this provider reaches, by label (`KeyCustody.lookup` routes a custody choice by it). */
  get tokenLabels(): readonly string[] {
    return [this.token.label];
  }

  /** Runs an operation on the token; an unreachable token is the 503 `KeyCustodyUnavailable`. */
  private async use<T>(
    operation: Parameters<Pkcs11Token["run"]>[0] extends (...args: infer A) => unknown
      ? (...args: A) => Promise<T> | T
      : never,
  ): Promise<T> {
    try {
      return await this.token.run(operation);
    } catch (error) {
      throw keyCustodyUnavailable(reasonOf(error));
    }
  }

  private locate(key: StoredKeyReference) {
    const location = key.providerKeyRef ? parsePkcs11Uri(key.providerKeyRef) : null;
    if (!location) throw new Error(`not a PKCS#11 key reference: ${key.providerKeyRef}`);
    if (location.token !== this.token.label)
      throw keyCustodyUnavailable(
        `the key is in the token '${location.token}', which this process is not configured with`,
      );
    return location;
  }

  async generate(request: GenerateKeyRequest): Promise<GeneratedKey> {
    const id = randomBytes(16);
    const usage = request.usage;
    const point = await this.use(async (module, session) => {
      const label = request.label.slice(0, 128);
      const keys = await module.C_GenerateKeyPairAsync(
        session,
        { mechanism: pkcs11js.CKM_EC_KEY_PAIR_GEN },
        [
          { type: pkcs11js.CKA_TOKEN, value: true },
          { type: pkcs11js.CKA_PRIVATE, value: false },
          { type: pkcs11js.CKA_EC_PARAMS, value: P256_PARAMS },
          { type: pkcs11js.CKA_VERIFY, value: usage === "sign" },
          { type: pkcs11js.CKA_LABEL, value: label },
          { type: pkcs11js.CKA_ID, value: id },
        ],
        [
          { type: pkcs11js.CKA_TOKEN, value: true },
          { type: pkcs11js.CKA_PRIVATE, value: true },
          { type: pkcs11js.CKA_SENSITIVE, value: true },
          { type: pkcs11js.CKA_EXTRACTABLE, value: false },
          { type: pkcs11js.CKA_SIGN, value: usage === "sign" },
          { type: pkcs11js.CKA_DERIVE, value: usage === "derive" },
          { type: pkcs11js.CKA_LABEL, value: label },
          { type: pkcs11js.CKA_ID, value: id },
        ],
      );
      const [attribute] = module.C_GetAttributeValue(session, keys.publicKey, [
        { type: pkcs11js.CKA_EC_POINT },
      ]);
      return ecPointOf(attribute!.value);
    });
    return {
      publicJwk: publicJwkOfPoint(point, usage),
      provider: "pkcs11",
      providerKeyRef: formatPkcs11Uri({ token: this.token.label, id }),
      privateKeyCipher: null,
    };
  }

  async signingKey(key: StoredKeyReference): Promise<Es256Signer> {
    const { id } = this.locate(key);
    return {
      signEs256: (signingInput) => {
        const digest = createHash("sha256").update(signingInput).digest();
        return this.use(async (module, session, connection) => {
          const handle = findKey(module, session, connection.handles, id, pkcs11js.CKO_PRIVATE_KEY);
          module.C_SignInit(session, { mechanism: pkcs11js.CKM_ECDSA }, handle);
          const signature = await module.C_SignAsync(session, digest, Buffer.alloc(64));
          if (signature.length !== 64)
            throw new Error("the token's ECDSA signature is not 64 bytes (r || s)");
          return new Uint8Array(signature);
        });
      },
    };
  }

  async publicJwk(key: StoredKeyReference): Promise<JWK> {
    const { id } = this.locate(key);
    return this.use((module, session, connection) => {
      const handle = findKey(module, session, connection.handles, id, pkcs11js.CKO_PUBLIC_KEY);
      const [point] = module.C_GetAttributeValue(session, handle, [{ type: pkcs11js.CKA_EC_POINT }]);
      const [canSign] = module.C_GetAttributeValue(session, handle, [{ type: pkcs11js.CKA_VERIFY }]);
      return publicJwkOfPoint(ecPointOf(point!.value), canSign?.value[0] ? "sign" : "derive");
    });
  }

  async deriveSharedSecret(key: StoredKeyReference, peerPoint: Uint8Array): Promise<Uint8Array> {
    const { id } = this.locate(key);
    return this.use(async (module, session, connection) => {
      const handle = findKey(module, session, connection.handles, id, pkcs11js.CKO_PRIVATE_KEY);
      // The shared secret is a session object readable here (it is no key of ours: ECDH-ES runs it
      // through Concat KDF next); it is destroyed at once.
      const secret = await module.C_DeriveKeyAsync(
        session,
        {
          mechanism: pkcs11js.CKM_ECDH1_DERIVE,
          parameter: ecdhParameters(Buffer.from(peerPoint)),
        },
        handle,
        [
          { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
          { type: pkcs11js.CKA_KEY_TYPE, value: pkcs11js.CKK_GENERIC_SECRET },
          { type: pkcs11js.CKA_TOKEN, value: false },
          { type: pkcs11js.CKA_SENSITIVE, value: false },
          { type: pkcs11js.CKA_EXTRACTABLE, value: true },
          { type: pkcs11js.CKA_VALUE_LEN, value: 32 },
        ],
      );
      try {
        const [value] = module.C_GetAttributeValue(session, secret, [{ type: pkcs11js.CKA_VALUE }]);
        return new Uint8Array(value!.value);
      } finally {
        module.C_DestroyObject(session, secret);
      }
    });
  }

  async destroy(key: StoredKeyReference): Promise<void> {
    const { id } = this.locate(key);
    await this.use((module, session, connection) => {
      for (const objectClass of [pkcs11js.CKO_PRIVATE_KEY, pkcs11js.CKO_PUBLIC_KEY]) {
        for (const handle of findAll(module, session, id, objectClass))
          module.C_DestroyObject(session, handle);
      }
      connection.handles.delete(handleKey(id, pkcs11js.CKO_PRIVATE_KEY));
      connection.handles.delete(handleKey(id, pkcs11js.CKO_PUBLIC_KEY));
    });
  }

  async status(): Promise<KeyProviderStatus> {
    const location = `PKCS#11 token '${this.token.label}'`;
    const { reachable, reason } = await this.token.reachable();
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

  /** Every key pair in the token, by CKA_ID, with its label (the CLI's `keys list`). */
  async listKeys(): Promise<HeldKey[]> {
    return this.use((module, session) =>
      findAll(module, session, null, pkcs11js.CKO_PRIVATE_KEY).map((handle) => {
        const [id, label] = module.C_GetAttributeValue(session, handle, [
          { type: pkcs11js.CKA_ID },
          { type: pkcs11js.CKA_LABEL },
        ]);
        return {
          providerKeyRef: formatPkcs11Uri({ token: this.token.label, id: id!.value }),
          label: label!.value.toString("utf8"),
        };
      }),
    );
  }

  close(): Promise<void> {
    return this.token.close();
  }
}

function ecdhParameters(publicData: Buffer): pkcs11js.ECDH1 {
  return { type: pkcs11js.CK_PARAMS_EC_DH, kdf: pkcs11js.CKD_NULL, publicData };
}

const handleKey = (id: Buffer, objectClass: number) => `${objectClass}:${id.toString("hex")}`;

/** The object of a class with this CKA_ID (handles are kept per connection); none → KeyNotInTokenError. */
function findKey(
  module: pkcs11js.PKCS11,
  session: pkcs11js.Handle,
  handles: Map<string, pkcs11js.Handle>,
  id: Buffer,
  objectClass: number,
): pkcs11js.Handle {
  const cacheKey = handleKey(id, objectClass);
  const known = handles.get(cacheKey);
  if (known) return known;
  const [handle] = findAll(module, session, id, objectClass);
  if (!handle) throw new KeyNotInTokenError("the key is not in the token");
  handles.set(cacheKey, handle);
  return handle;
}

function findAll(
  module: pkcs11js.PKCS11,
  session: pkcs11js.Handle,
  id: Buffer | null,
  objectClass: number,
): pkcs11js.Handle[] {
  module.C_FindObjectsInit(session, [
    { type: pkcs11js.CKA_CLASS, value: objectClass },
    ...(id ? [{ type: pkcs11js.CKA_ID, value: id }] : []),
  ]);
  try {
    const found: pkcs11js.Handle[] = [];
    for (;;) {
      const batch = module.C_FindObjects(session, 64);
      if (batch.length === 0) return found;
      found.push(...batch);
    }
  } finally {
    module.C_FindObjectsFinal(session);
  }
}
