// The PKCS#11 token's own thread (./pkcs11-token.ts starts it): it alone loads the vendor module through
// pkcs11js, keeps the logged-in session pool and answers the operations the main thread posts. Every
// PKCS#11 call, synchronous ones included (C_SignInit, C_FindObjects*, C_GetAttributeValue, C_Login, …),
// runs here, so a token that hangs inside one stalls this thread, never the server's event loop; the main
// thread gives the operation up after PKCS11_TIMEOUT_MS and terminates this thread (docs/key-custody.md).
// Plain JavaScript on purpose: a worker cannot rely on the TypeScript loader of whoever started it
// (tsx for the CLI, vite-node for tests), like packages/db's embedded database thread.
import { parentPort, workerData } from "node:worker_threads";
import pkcs11js from "pkcs11js";

/** @type {{ modulePath: string, tokenLabel: string, pin: string, sessions: number, othersInside: boolean }} */
const settings = workerData;

/** After a failed connection attempt, requests fail at once for this long instead of each trying again. */
const RECONNECT_PAUSE_MS = 1_000;

/** DER of the OID of P-256 (prime256v1, 1.2.840.10045.3.1.7): CKA_EC_PARAMS of every key made here. */
const P256_PARAMS = Buffer.from("06082a8648ce3d030107", "hex");

/** The token cannot be used now (not reachable, not found, login refused): the caller answers 503. */
class TokenUnavailable extends Error {}
/** The token is reachable but holds no key with this id. */
class KeyNotInToken extends Error {}

/**
 * @typedef {{
 *   module: pkcs11js.PKCS11, slot: Buffer, idle: Buffer[], waiting: ((session: Buffer) => void)[],
 *   handles: Map<string, Buffer>, busy: number, dropped: boolean, finalise: () => void,
 *   finalised: Promise<void>, opened: Buffer[],
 * }} Connection
 */

/** @type {Promise<Connection> | null} */
let connection = null;
/** @type {Connection | null} */
let current = null;
/** @type {Promise<void>} */
let retiring = Promise.resolve();
let failedAt = 0;
let lastFailure = "";
/**
 * Whether a terminated token thread of this process may still be inside the module (its call hung): then
 * the module must not be finalised under it, so a dropped connection only closes its own sessions.
 */
let othersInside = settings.othersInside;

/** Runs `operation` on a session (reconnecting once when it fails), as the provider did on the main thread. */
async function run(operation) {
  try {
    return await once(operation);
  } catch (error) {
    if (error instanceof TokenUnavailable) throw error;
    // A key not found may be a token that went away (SoftHSM then finds nothing): look again anew.
    drop();
    try {
      return await once(operation);
    } catch (retried) {
      if (retried instanceof TokenUnavailable || retried instanceof KeyNotInToken) throw retried;
      drop();
      throw new TokenUnavailable(`the token '${settings.tokenLabel}' failed: ${reasonOf(retried)}`);
    }
  }
}

async function once(operation) {
  const c = await connect();
  c.busy++;
  try {
    const session = await acquire(c);
    try {
      return await operation(c, session);
    } finally {
      release(c, session);
    }
  } finally {
    c.busy--;
    if (c.dropped && c.busy === 0) c.finalise();
  }
}

/** @returns {Promise<Connection>} */
function connect() {
  if (connection) return connection;
  if (Date.now() - failedAt < RECONNECT_PAUSE_MS) return Promise.reject(new TokenUnavailable(lastFailure));
  // The module is one per process: a dropped connection is finalised before a new one initialises it.
  const attempt = retiring.then(open);
  connection = attempt;
  attempt.then(
    (opened) => {
      if (connection === attempt) current = opened;
      else {
        opened.dropped = true;
        opened.finalise();
      }
    },
    (error) => {
      if (connection === attempt) connection = null;
      failedAt = Date.now();
      lastFailure =
        error instanceof TokenUnavailable
          ? error.message
          : `the token '${settings.tokenLabel}' cannot be reached: ${reasonOf(error)}`;
    },
  );
  return attempt.catch((error) => {
    throw error instanceof TokenUnavailable
      ? error
      : new TokenUnavailable(`the token '${settings.tokenLabel}' cannot be reached: ${reasonOf(error)}`);
  });
}

/** @returns {Connection} */
function open() {
  const module = new pkcs11js.PKCS11();
  let initialised = false;
  /** @type {Buffer[]} */
  const opened = [];
  try {
    module.load(settings.modulePath);
    try {
      // Signing and derivation run on libuv's worker threads (the *Async calls) beside calls on this
      // thread: the module must lock (without this flag SoftHSM takes no locks, and crashes or spins).
      module.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK });
    } catch (error) {
      if (codeOf(error) !== "CKR_CRYPTOKI_ALREADY_INITIALIZED") throw error;
    }
    initialised = true;
    const slot = module
      .C_GetSlotList(true)
      .find((s) => module.C_GetTokenInfo(s).label.trim() === settings.tokenLabel);
    if (slot === undefined)
      throw new TokenUnavailable(`no token labelled '${settings.tokenLabel}' is present`);
    const flags = pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION;
    for (let i = 0; i < Math.max(1, settings.sessions); i++) opened.push(module.C_OpenSession(slot, flags));
    try {
      module.C_Login(opened[0], pkcs11js.CKU_USER, settings.pin);
    } catch (error) {
      if (codeOf(error) !== "CKR_USER_ALREADY_LOGGED_IN") {
        // The PIN itself never appears in the reason.
        throw new TokenUnavailable(`login to the token '${settings.tokenLabel}' failed: ${codeOf(error)}`);
      }
    }
    let finalise = () => {};
    const finalised = new Promise((resolve) => {
      finalise = () => {
        close(module, opened);
        resolve(undefined);
      };
    });
    return {
      module,
      slot,
      idle: [...opened],
      waiting: [],
      handles: new Map(),
      busy: 0,
      dropped: false,
      finalise,
      finalised,
      opened,
    };
  } catch (error) {
    if (initialised) close(module, opened);
    else
      try {
        module.close();
      } catch {}
    throw error;
  }
}

/**
 * Forgets the connection: new operations open another (after this one is finalised); operations still
 * running on it finish first, so the module is never finalised under them.
 */
function drop() {
  const dropping = current;
  connection = null;
  current = null;
  if (!dropping || dropping.dropped) return;
  dropping.dropped = true;
  retiring = dropping.finalised;
  if (dropping.busy === 0) dropping.finalise();
}

/** Finalises the module, or (while a terminated thread may be inside it) closes this connection's sessions. */
function close(module, sessions) {
  if (othersInside) {
    for (const session of sessions)
      try {
        module.C_CloseSession(session);
      } catch {}
  } else
    try {
      module.C_Finalize();
    } catch {}
  try {
    module.close();
  } catch {}
}

/** @returns {Promise<Buffer>} */
function acquire(c) {
  const session = c.idle.pop();
  if (session !== undefined) return Promise.resolve(session);
  return new Promise((resolve) => c.waiting.push(resolve));
}

function release(c, session) {
  const next = c.waiting.shift();
  if (next) next(session);
  else c.idle.push(session);
}

function codeOf(error) {
  return (error?.message ?? String(error)).split(":")[0] ?? "unknown";
}

/** A failure's reason (PKCS#11 return codes; never a PIN). */
function reasonOf(error) {
  if (error instanceof TokenUnavailable || error instanceof KeyNotInToken) return error.message;
  return codeOf(error);
}

const bytes = (value) => Buffer.from(value.buffer, value.byteOffset, value.byteLength);
const handleKey = (id, objectClass) => `${objectClass}:${id.toString("hex")}`;

/** The object of a class with this CKA_ID (handles are kept per connection); none → KeyNotInToken. */
function findKey(c, session, id, objectClass) {
  const cacheKey = handleKey(id, objectClass);
  const known = c.handles.get(cacheKey);
  if (known) return known;
  const [handle] = findAll(c.module, session, id, objectClass);
  if (!handle) throw new KeyNotInToken("the key is not in the token");
  c.handles.set(cacheKey, handle);
  return handle;
}

function findAll(module, session, id, objectClass) {
  module.C_FindObjectsInit(session, [
    { type: pkcs11js.CKA_CLASS, value: objectClass },
    ...(id ? [{ type: pkcs11js.CKA_ID, value: id }] : []),
  ]);
  try {
    const found = [];
    for (;;) {
      const batch = module.C_FindObjects(session, 64);
      if (batch.length === 0) return found;
      found.push(...batch);
    }
  } finally {
    module.C_FindObjectsFinal(session);
  }
}

/**
 * The operations the provider (./pkcs11-key-provider.ts) asks for, by name; arguments and results are
 * plain data (byte arrays arrive as Uint8Array). `TokenOperations` in ./pkcs11-token.ts types them.
 */
const operations = {
  tokenInfo: (c) => c.module.C_GetTokenInfo(c.slot).label.trim(),

  /** A P-256 key pair (sensitive, not extractable); its public point (CKA_EC_POINT) comes back. */
  generate: async (c, session, { id, label, usage }) => {
    const keyId = bytes(id);
    const keys = await c.module.C_GenerateKeyPairAsync(
      session,
      { mechanism: pkcs11js.CKM_EC_KEY_PAIR_GEN },
      [
        { type: pkcs11js.CKA_TOKEN, value: true },
        { type: pkcs11js.CKA_PRIVATE, value: false },
        { type: pkcs11js.CKA_EC_PARAMS, value: P256_PARAMS },
        { type: pkcs11js.CKA_VERIFY, value: usage === "sign" },
        { type: pkcs11js.CKA_LABEL, value: label },
        { type: pkcs11js.CKA_ID, value: keyId },
      ],
      [
        { type: pkcs11js.CKA_TOKEN, value: true },
        { type: pkcs11js.CKA_PRIVATE, value: true },
        { type: pkcs11js.CKA_SENSITIVE, value: true },
        { type: pkcs11js.CKA_EXTRACTABLE, value: false },
        { type: pkcs11js.CKA_SIGN, value: usage === "sign" },
        { type: pkcs11js.CKA_DERIVE, value: usage === "derive" },
        { type: pkcs11js.CKA_LABEL, value: label },
        { type: pkcs11js.CKA_ID, value: keyId },
      ],
    );
    const [point] = c.module.C_GetAttributeValue(session, keys.publicKey, [{ type: pkcs11js.CKA_EC_POINT }]);
    return point.value;
  },

  /** CKM_ECDSA over a digest: `r || s`. C_Sign runs on libuv's pool, so several sessions sign at once. */
  sign: async (c, session, { id, digest }) => {
    const handle = findKey(c, session, bytes(id), pkcs11js.CKO_PRIVATE_KEY);
    c.module.C_SignInit(session, { mechanism: pkcs11js.CKM_ECDSA }, handle);
    return c.module.C_SignAsync(session, bytes(digest), Buffer.alloc(64));
  },

  publicKey: (c, session, { id }) => {
    const handle = findKey(c, session, bytes(id), pkcs11js.CKO_PUBLIC_KEY);
    const [point, canSign] = c.module.C_GetAttributeValue(session, handle, [
      { type: pkcs11js.CKA_EC_POINT },
      { type: pkcs11js.CKA_VERIFY },
    ]);
    return { point: point.value, canSign: canSign.value[0] === 1 };
  },

  /** CKM_ECDH1_DERIVE (CKD_NULL): the shared secret Z, a session object read and destroyed at once. */
  derive: async (c, session, { id, peerPoint }) => {
    const handle = findKey(c, session, bytes(id), pkcs11js.CKO_PRIVATE_KEY);
    const secret = await c.module.C_DeriveKeyAsync(
      session,
      {
        mechanism: pkcs11js.CKM_ECDH1_DERIVE,
        parameter: { type: pkcs11js.CK_PARAMS_EC_DH, kdf: pkcs11js.CKD_NULL, publicData: bytes(peerPoint) },
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
      const [value] = c.module.C_GetAttributeValue(session, secret, [{ type: pkcs11js.CKA_VALUE }]);
      return value.value;
    } finally {
      c.module.C_DestroyObject(session, secret);
    }
  },

  destroy: (c, session, { id }) => {
    const keyId = bytes(id);
    for (const objectClass of [pkcs11js.CKO_PRIVATE_KEY, pkcs11js.CKO_PUBLIC_KEY]) {
      for (const handle of findAll(c.module, session, keyId, objectClass))
        c.module.C_DestroyObject(session, handle);
      c.handles.delete(handleKey(keyId, objectClass));
    }
  },

  /** Every key pair's CKA_ID and CKA_LABEL. */
  list: (c, session) =>
    findAll(c.module, session, null, pkcs11js.CKO_PRIVATE_KEY).map((handle) => {
      const [id, label] = c.module.C_GetAttributeValue(session, handle, [
        { type: pkcs11js.CKA_ID },
        { type: pkcs11js.CKA_LABEL },
      ]);
      return { id: id.value, label: label.value.toString("utf8") };
    }),
};

const kindOf = (error) =>
  error instanceof TokenUnavailable
    ? "unavailable"
    : error instanceof KeyNotInToken
      ? "not-in-token"
      : "failed";

parentPort.on("message", async (message) => {
  if (message.type === "others-left") {
    // No terminated thread is inside the module any more: the next drop may finalise it again, and this
    // connection (opened beside the hung call) is replaced, which closes the sessions the others left open.
    othersInside = false;
    drop();
    return;
  }
  if (message.type === "close") {
    drop();
    await retiring;
    parentPort.postMessage({ type: "closed" });
    return;
  }
  const operation = operations[message.op];
  try {
    if (!operation) throw new Error(`no operation '${message.op}'`);
    const value = await run((c, session) => operation(c, session, message.args ?? {}));
    parentPort.postMessage({ id: message.id, value });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: { kind: kindOf(error), message: reasonOf(error) } });
  }
});
