/**
 * The sandbox wallet's storage: IndexedDB in this browser profile only. Private keys are non-extractable
 * WebCrypto keys (IndexedDB keeps CryptoKey objects as they are, so the key material never reaches
 * script); credentials are stored as issued (the SD-JWT VC compact form).
 */

const DB_NAME = "cred-sandbox-wallet";
const DB_VERSION = 1;
type StoreName = "keys" | "credentials" | "flows";

export interface StoredKey {
  id: string;
  /** ECDSA P-256, `extractable: false`. */
  privateKey: CryptoKey;
  publicJwk: JsonWebKey;
  createdAt: string;
}

export interface StoredCredential {
  id: string;
  /** `<issuer-signed JWT>~<disclosure>~…~` as the issuer sent it. */
  compact: string;
  /** The holder key it is bound to (`StoredKey.id`). */
  keyId: string;
  credentialIssuer: string;
  issuerName: string | null;
  configurationId: string;
  displayName: string | null;
  receivedAt: string;
}

/** An authorization code flow waiting for the browser to come back from the issuer's /authorize. */
export interface PendingAuthorization {
  state: string;
  codeVerifier: string;
  redirectUri: string;
  clientId: string;
  credentialIssuer: string;
  configurationId: string;
  dpopKeyId: string | null;
  createdAt: string;
}

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, DB_VERSION);
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains("keys")) db.createObjectStore("keys", { keyPath: "id" });
      if (!db.objectStoreNames.contains("credentials"))
        db.createObjectStore("credentials", { keyPath: "id" });
      if (!db.objectStoreNames.contains("flows")) db.createObjectStore("flows", { keyPath: "state" });
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error("IndexedDB is not available"));
  });
}

async function run<T>(
  store: StoreName,
  mode: IDBTransactionMode,
  action: (objects: IDBObjectStore) => IDBRequest<T>,
): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(store, mode);
      const request = action(tx.objectStore(store));
      tx.oncomplete = () => resolve(request.result);
      tx.onerror = () => reject(tx.error ?? request.error);
      tx.onabort = () => reject(tx.error ?? new Error("IndexedDB transaction aborted"));
    });
  } finally {
    db.close();
  }
}

export const putKey = (key: StoredKey) => run("keys", "readwrite", (s) => s.put(key)).then(() => key);
export const getKey = (id: string) =>
  run<StoredKey | undefined>("keys", "readonly", (s) => s.get(id) as IDBRequest<StoredKey | undefined>);
export const deleteKey = (id: string) => run("keys", "readwrite", (s) => s.delete(id));

export const putCredential = (credential: StoredCredential) =>
  run("credentials", "readwrite", (s) => s.put(credential)).then(() => credential);
export const listCredentials = () =>
  run<StoredCredential[]>("credentials", "readonly", (s) => s.getAll() as IDBRequest<StoredCredential[]>);
export const deleteCredential = (id: string) => run("credentials", "readwrite", (s) => s.delete(id));

export const putFlow = (flow: PendingAuthorization) => run("flows", "readwrite", (s) => s.put(flow));
export const getFlow = (state: string) =>
  run<PendingAuthorization | undefined>(
    "flows",
    "readonly",
    (s) => s.get(state) as IDBRequest<PendingAuthorization | undefined>,
  );
export const deleteFlow = (state: string) => run("flows", "readwrite", (s) => s.delete(state));
