import pkcs11js from "pkcs11js";

/** How to reach the token (env.ts reads them: PKCS11_MODULE, PKCS11_TOKEN_LABEL, PKCS11_PIN(_FILE), PKCS11_SESSIONS). */
export interface Pkcs11Settings {
  /** The vendor's PKCS#11 library (e.g. /usr/lib/softhsm/libsofthsm2.so). */
  modulePath: string;
  /** The token's label (CKA_LABEL of the token, as `softhsm2-util --init-token --label` set it). */
  tokenLabel: string;
  /** The user PIN. Never logged: only the composition root holds it. */
  pin: string;
  /** Sessions kept open (the pool); one operation runs on a session at a time. Default 4. */
  sessions?: number;
  /**
   * Milliseconds an operation (waiting for a session included) may take before it is given up as
   * `TokenUnavailableError` (the 503 `KeyCustodyUnavailable`): a hung network HSM answers late or never.
   * Default 10 000.
   */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** The token cannot be used now (not reachable, not found, login refused): the caller answers 503. */
export class TokenUnavailableError extends Error {
  override readonly name = "TokenUnavailableError";
}

/** The token is reachable but holds no key with this id. */
export class KeyNotInTokenError extends Error {
  override readonly name = "KeyNotInTokenError";
}

interface Connection {
  module: pkcs11js.PKCS11;
  slot: pkcs11js.Handle;
  idle: pkcs11js.Handle[];
  waiting: ((session: pkcs11js.Handle) => void)[];
  /** Private and public key handles by CKA_ID (hex): valid in every session of this connection. */
  handles: Map<string, pkcs11js.Handle>;
  /** Operations running on it; a dropped connection is finalised once none is left. */
  busy: number;
  dropped: boolean;
  /** Resolves once the connection is finalised (after a drop). */
  finalised: Promise<void>;
  finalise: () => void;
}

/** After a failed connection attempt, requests fail at once for this long instead of each trying again. */
const RECONNECT_PAUSE_MS = 1_000;

/**
 * One PKCS#11 token: the module loaded and initialised, a logged-in pool of sessions, and reconnection.
 * Any failure of an operation drops the connection (C_Finalize) and runs the operation once more on a
 * new one: a token that went away and came back (a network HSM restarted, a SoftHSM token directory
 * restored) is used again without a restart. While no connection can be made, `run` throws
 * `TokenUnavailableError`.
 */
export class Pkcs11Token {
  private connection: Promise<Connection> | null = null;
  private current: Connection | null = null;
  private retiring: Promise<void> = Promise.resolve();
  private failedAt = 0;
  private lastFailure = "";
  /** Operations given up after `timeoutMs` that have not returned yet: while any is, requests fail at once. */
  private stuck = 0;

  constructor(private readonly settings: Pkcs11Settings) {}

  get label(): string {
    return this.settings.tokenLabel;
  }

  /** Runs `operation` on a session of the token (reconnecting once when it fails). */
  async run<T>(
    operation: (module: pkcs11js.PKCS11, session: pkcs11js.Handle, c: Connection) => Promise<T> | T,
  ) {
    try {
      return await this.once(operation);
    } catch (error) {
      if (error instanceof TokenUnavailableError) throw error;
      // A key not found may be a token that went away (SoftHSM then finds nothing): look again anew.
      this.drop();
      try {
        return await this.once(operation);
      } catch (retried) {
        if (retried instanceof TokenUnavailableError || retried instanceof KeyNotInTokenError) throw retried;
        this.drop();
        throw new TokenUnavailableError(`the token '${this.label}' failed: ${reasonOf(retried)}`);
      }
    }
  }

  /** Whether the token answers now (it is asked for its info, which fails once it is gone). */
  async reachable(): Promise<{ reachable: boolean; reason?: string }> {
    try {
      await this.run((module, _session, c) => module.C_GetTokenInfo(c.slot));
      return { reachable: true };
    } catch (error) {
      return { reachable: false, reason: reasonOf(error) };
    }
  }

  /** Closes the sessions and the module (shutdown). */
  async close(): Promise<void> {
    this.drop();
  }

  private async once<T>(
    operation: (module: pkcs11js.PKCS11, session: pkcs11js.Handle, c: Connection) => Promise<T> | T,
  ): Promise<T> {
    const connection = await this.connect();
    connection.busy++;
    const running = (async () => {
      try {
        const session = await acquire(connection);
        try {
          return await operation(connection.module, session, connection);
        } finally {
          release(connection, session);
        }
      } finally {
        connection.busy--;
        if (connection.dropped && connection.busy === 0) connection.finalise();
      }
    })();
    const limit = this.settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timed out">((resolve) => {
      timer = setTimeout(() => resolve("timed out"), limit);
    });
    try {
      const outcome = await Promise.race([running, timedOut]);
      if (outcome !== "timed out") return outcome;
    } finally {
      clearTimeout(timer);
    }
    // Given up: the call keeps its session until it returns (no other operation may use it meanwhile),
    // the connection is dropped (finalised once the call returns), and until then requests fail at once
    // rather than each waiting for the same hung token.
    this.stuck++;
    running.then(
      () => this.stuck--,
      () => this.stuck--,
    );
    this.drop();
    throw new TokenUnavailableError(`the token '${this.label}' did not answer within ${limit} ms`);
  }

  private connect(): Promise<Connection> {
    if (this.stuck > 0)
      return Promise.reject(
        new TokenUnavailableError(`the token '${this.label}' has not answered an earlier operation yet`),
      );
    if (this.connection) return this.connection;
    if (Date.now() - this.failedAt < RECONNECT_PAUSE_MS)
      return Promise.reject(new TokenUnavailableError(this.lastFailure));
    // The module is one per process: a dropped connection is finalised before a new one initialises it.
    const previous = this.retiring;
    const attempt = previous.then(() => this.open());
    this.connection = attempt;
    attempt.then(
      (connection) => {
        if (this.connection === attempt) this.current = connection;
        else {
          connection.dropped = true;
          connection.finalise();
        }
      },
      (error: unknown) => {
        if (this.connection === attempt) this.connection = null;
        this.failedAt = Date.now();
        this.lastFailure =
          error instanceof TokenUnavailableError
            ? error.message
            : `the token '${this.label}' cannot be reached: ${reasonOf(error)}`;
      },
    );
    return attempt.catch((error: unknown) => {
      throw error instanceof TokenUnavailableError
        ? error
        : new TokenUnavailableError(`the token '${this.label}' cannot be reached: ${reasonOf(error)}`);
    });
  }

  private open(): Connection {
    const module = new pkcs11js.PKCS11();
    let initialised = false;
    try {
      module.load(this.settings.modulePath);
      try {
        // Signing and derivation run on libuv's worker threads (the *Async calls) beside calls on the main
        // thread: the module must lock (without this flag SoftHSM takes no locks, and crashes or spins).
        module.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK });
      } catch (error) {
        if (codeOf(error) !== "CKR_CRYPTOKI_ALREADY_INITIALIZED") throw error;
      }
      initialised = true;
      const slot = module
        .C_GetSlotList(true)
        .find((s) => module.C_GetTokenInfo(s).label.trim() === this.settings.tokenLabel);
      if (slot === undefined)
        throw new TokenUnavailableError(`no token labelled '${this.settings.tokenLabel}' is present`);
      const flags = pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION;
      const idle = Array.from({ length: Math.max(1, this.settings.sessions ?? 4) }, () =>
        module.C_OpenSession(slot, flags),
      );
      try {
        module.C_Login(idle[0]!, pkcs11js.CKU_USER, this.settings.pin);
      } catch (error) {
        if (codeOf(error) !== "CKR_USER_ALREADY_LOGGED_IN") {
          // The PIN itself never appears in the reason.
          throw new TokenUnavailableError(
            `login to the token '${this.settings.tokenLabel}' failed: ${codeOf(error)}`,
          );
        }
      }
      let finalise = () => {};
      const finalised = new Promise<void>((resolve) => {
        finalise = () => {
          finaliseModule(module);
          resolve();
        };
      });
      return {
        module,
        slot,
        idle,
        waiting: [],
        handles: new Map(),
        busy: 0,
        dropped: false,
        finalised,
        finalise,
      };
    } catch (error) {
      if (initialised) finaliseModule(module);
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
  private drop(): void {
    const current = this.current;
    this.connection = null;
    this.current = null;
    if (!current || current.dropped) return;
    current.dropped = true;
    this.retiring = current.finalised;
    if (current.busy === 0) current.finalise();
  }
}

function finaliseModule(module: pkcs11js.PKCS11): void {
  try {
    module.C_Finalize();
  } catch {}
  try {
    module.close();
  } catch {}
}

function acquire(connection: Connection): Promise<pkcs11js.Handle> {
  const session = connection.idle.pop();
  if (session !== undefined) return Promise.resolve(session);
  return new Promise((resolve) => connection.waiting.push(resolve));
}

function release(connection: Connection, session: pkcs11js.Handle): void {
  const next = connection.waiting.shift();
  if (next) next(session);
  else connection.idle.push(session);
}

function codeOf(error: unknown): string {
  const e = error as { message?: string };
  return (e?.message ?? String(error)).split(":")[0] ?? "unknown";
}

/** A failure's reason for a log line or a readiness detail (PKCS#11 return codes; never a PIN). */
export function reasonOf(error: unknown): string {
  if (error instanceof TokenUnavailableError || error instanceof KeyNotInTokenError) return error.message;
  return codeOf(error);
}
