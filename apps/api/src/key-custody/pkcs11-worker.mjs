// The PKCS#11 module's own thread (./pkcs11-token.ts starts it): it alone loads the vendor module through
// pkcs11js (one C_Initialize for all its tokens), keeps a logged-in session pool per token and answers the
// operations the main thread posts, each naming its token by label. Every
// PKCS#11 call, synchronous ones included (C_SignInit, C_FindObjects*, C_GetAttributeValue, C_Login, …),
// runs here, so a token that hangs inside one stalls this thread, never the server's event loop; the main
// thread gives the operation up after PKCS11_TIMEOUT_MS and terminates this thread (docs/key-custody.md).
// Plain JavaScript on purpose: a worker cannot rely on the TypeScript loader of whoever started it
// (tsx for the CLI, vite-node for tests), like packages/db's embedded database thread.
import { parentPort, workerData } from "node:worker_threads";
import pkcs11js from "pkcs11js";

/**
 * @type {{
 *   modulePath: string, tokens: { tokenLabel: string, pin: string }[], sessions: number,
 *   othersInside: boolean,
 * }}
 */
const settings = workerData;
/** Each token's PIN by label (never logged; only the login uses it). */
const pins = new Map(settings.tokens.map((t) => [t.tokenLabel, t.pin]));

/** After a failed connection attempt, requests fail at once for this long instead of each trying again. */
const RECONNECT_PAUSE_MS = 1_000;

/** DER of the OID of P-256 (prime256v1, 1.2.840.10045.3.1.7): CKA_EC_PARAMS of every key made here. */
const P256_PARAMS = Buffer.from("06082a8648ce3d030107", "hex");

/** The token cannot be used now (not reachable, not found, login refused): the caller answers 503. */
class TokenUnavailable extends Error {}
/** The token is reachable but holds no key with this id. */
class KeyNotInToken extends Error {}
/** The token refused the login (a wrong PIN): initialising the module again would not help. */
class LoginRefused extends TokenUnavailable {}

/**
 * One token of the module while a connection lasts: its slot, its logged-in session pool and the key
 * handles found in it.
 * @typedef {{
 *   label: string, slot: Buffer, idle: Buffer[], waiting: ((session: Buffer) => void)[],
 *   handles: Map<string, Buffer>, opened: Buffer[],
 * }} Token
 */
/**
 * The module, initialised once (C_Initialize acts on the whole module, every token of it), and the tokens
 * opened on it so far (each on its first operation, so a token that is missing fails only its own).
 * @typedef {{
 *   module: pkcs11js.PKCS11, tokens: Map<string, Token>, busy: number, dropped: boolean,
 *   finalise: () => void, finalised: Promise<void>,
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
 * Tokens that could not be opened: when, and why. Their operations fail at once for RECONNECT_PAUSE_MS,
 * so a missing token makes the module re-initialise at most once a pause, not on every request.
 * @type {Map<string, { at: number, reason: string }>}
 */
const tokenFailures = new Map();
/**
 * Whether a terminated thread of this process may still be inside the module (its call hung): then
 * the module must not be finalised under it, so a dropped connection only closes its own sessions.
 */
let othersInside = settings.othersInside;

/**
 * Runs `operation` on a session of the token `label` (reconnecting once when it fails). A reconnection
 * finalises and initialises the module: every token's sessions are opened again on their next operation.
 */
async function run(label, operation) {
  try {
    return await once(label, operation);
  } catch (error) {
    if (error instanceof TokenUnavailable) throw error;
    // A key not found may be a token that went away (SoftHSM then finds nothing): look again anew.
    drop();
    try {
      return await once(label, operation);
    } catch (retried) {
      if (retried instanceof TokenUnavailable || retried instanceof KeyNotInToken) throw retried;
      drop();
      throw new TokenUnavailable(`the token '${label}' failed: ${reasonOf(retried)}`);
    }
  }
}

async function once(label, operation) {
  const failed = tokenFailures.get(label);
  if (failed && Date.now() - failed.at < RECONNECT_PAUSE_MS) throw new TokenUnavailable(failed.reason);
  const c = await connect(label);
  c.busy++;
  try {
    const token = tokenOf(c, label);
    const session = await acquire(token);
    try {
      return await operation(c, token, session);
    } finally {
      release(token, session);
    }
  } finally {
    c.busy--;
    if (c.dropped && c.busy === 0) c.finalise();
  }
}

/** @returns {Promise<Connection>} */
function connect(label) {
  const unreachable = (reason) => new TokenUnavailable(`the token '${label}' cannot be reached: ${reason}`);
  if (connection) return connection;
  if (Date.now() - failedAt < RECONNECT_PAUSE_MS) return Promise.reject(unreachable(lastFailure));
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
      lastFailure = reasonOf(error);
    },
  );
  return attempt.catch((error) => {
    throw unreachable(reasonOf(error));
  });
}

/** Loads and initialises the module (its tokens are opened on their first operation). @returns {Connection} */
function open() {
  const module = new pkcs11js.PKCS11();
  try {
    module.load(settings.modulePath);
    try {
      // Signing and derivation run on libuv's worker threads (the *Async calls) beside calls on this
      // thread: the module must lock (without this flag SoftHSM takes no locks, and crashes or spins).
      module.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK });
    } catch (error) {
      if (codeOf(error) !== "CKR_CRYPTOKI_ALREADY_INITIALIZED") throw error;
    }
  } catch (error) {
    try {
      module.close();
    } catch {}
    throw error;
  }
  /** @type {Map<string, Token>} */
  const tokens = new Map();
  let finalise = () => {};
  const finalised = new Promise((resolve) => {
    finalise = () => {
      close(
        module,
        [...tokens.values()].flatMap((token) => token.opened),
      );
      resolve(undefined);
    };
  });
  return { module, tokens, busy: 0, dropped: false, finalise, finalised };
}

/**
 * The token `label` on this connection, opened (its session pool, one login) on its first use. A token
 * that is not there or refuses the login fails alone (TokenUnavailable), the module's other tokens go on.
 * @returns {Token}
 */
function tokenOf(c, label) {
  const known = c.tokens.get(label);
  if (known) return known;
  const pin = pins.get(label);
  if (pin === undefined) throw new TokenUnavailable(`the token '${label}' is not configured in this process`);
  /** @type {Buffer[]} */
  const opened = [];
  try {
    const slot = c.module.C_GetSlotList(true).find((s) => c.module.C_GetTokenInfo(s).label.trim() === label);
    if (slot === undefined) throw new TokenUnavailable(`no token labelled '${label}' is present`);
    const flags = pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION;
    for (let i = 0; i < Math.max(1, settings.sessions); i++) opened.push(c.module.C_OpenSession(slot, flags));
    try {
      c.module.C_Login(opened[0], pkcs11js.CKU_USER, pin);
    } catch (error) {
      if (codeOf(error) !== "CKR_USER_ALREADY_LOGGED_IN") {
        // The PIN itself never appears in the reason.
        throw new LoginRefused(`login to the token '${label}' failed: ${codeOf(error)}`);
      }
    }
    /** @type {Token} */
    const token = { label, slot, idle: [...opened], waiting: [], handles: new Map(), opened };
    c.tokens.set(label, token);
    tokenFailures.delete(label);
    return token;
  } catch (error) {
    for (const session of opened)
      try {
        c.module.C_CloseSession(session);
      } catch {}
    const reason =
      error instanceof TokenUnavailable
        ? error.message
        : `the token '${label}' cannot be reached: ${reasonOf(error)}`;
    tokenFailures.set(label, { at: Date.now(), reason });
    // The module lists its tokens when it is initialised (SoftHSM does): a token missing now is looked
    // for again on a fresh initialisation, after the pause; a refused login is not retried that way.
    if (!(error instanceof LoginRefused) && c === current) drop();
    throw new TokenUnavailable(reason);
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
function acquire(token) {
  const session = token.idle.pop();
  if (session !== undefined) return Promise.resolve(session);
  return new Promise((resolve) => token.waiting.push(resolve));
}

function release(token, session) {
  const next = token.waiting.shift();
  if (next) next(session);
  else token.idle.push(session);
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

/** The object of a class with this CKA_ID (handles are kept per token and connection); none → KeyNotInToken. */
function findKey(c, token, session, id, objectClass) {
  const cacheKey = handleKey(id, objectClass);
  const known = token.handles.get(cacheKey);
  if (known) return known;
  const [handle] = findAll(c.module, session, id, objectClass);
  if (!handle) throw new KeyNotInToken(`the key is not in the token '${token.label}'`);
  token.handles.set(cacheKey, handle);
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
  tokenInfo: (c, token) => c.module.C_GetTokenInfo(token.slot).label.trim(),

  /** A P-256 key pair (sensitive, not extractable); its public point (CKA_EC_POINT) comes back. */
  generate: async (c, _token, session, { id, label, usage }) => {
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
  sign: async (c, token, session, { id, digest }) => {
    const handle = findKey(c, token, session, bytes(id), pkcs11js.CKO_PRIVATE_KEY);
    c.module.C_SignInit(session, { mechanism: pkcs11js.CKM_ECDSA }, handle);
    return c.module.C_SignAsync(session, bytes(digest), Buffer.alloc(64));
  },

  publicKey: (c, token, session, { id }) => {
    const handle = findKey(c, token, session, bytes(id), pkcs11js.CKO_PUBLIC_KEY);
    const [point, canSign] = c.module.C_GetAttributeValue(session, handle, [
      { type: pkcs11js.CKA_EC_POINT },
      { type: pkcs11js.CKA_VERIFY },
    ]);
    return { point: point.value, canSign: canSign.value[0] === 1 };
  },

  /** CKM_ECDH1_DERIVE (CKD_NULL): the shared secret Z, a session object read and destroyed at once. */
  derive: async (c, token, session, { id, peerPoint }) => {
    const handle = findKey(c, token, session, bytes(id), pkcs11js.CKO_PRIVATE_KEY);
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

  destroy: (c, token, session, { id }) => {
    const keyId = bytes(id);
    for (const objectClass of [pkcs11js.CKO_PRIVATE_KEY, pkcs11js.CKO_PUBLIC_KEY]) {
      for (const handle of findAll(c.module, session, keyId, objectClass))
        c.module.C_DestroyObject(session, handle);
      token.handles.delete(handleKey(keyId, objectClass));
    }
  },

  /** Every key pair's CKA_ID and CKA_LABEL. */
  list: (c, _token, session) =>
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
    const value = await run(message.token, (c, token, session) =>
      operation(c, token, session, message.args ?? {}),
    );
    parentPort.postMessage({ id: message.id, value });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: { kind: kindOf(error), message: reasonOf(error) } });
  }
});
