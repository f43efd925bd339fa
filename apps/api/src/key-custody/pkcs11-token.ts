import { Worker } from "node:worker_threads";

/** One token of the module: its label and its user PIN. */
export interface Pkcs11TokenLogin {
  /** The token's label (CKA_LABEL of the token, as `softhsm2-util --init-token --label` set it). */
  tokenLabel: string;
  /** The user PIN. Never logged: only the composition root and the module's thread hold it. */
  pin: string;
}

/**
 * How to reach the module's tokens (env.ts reads them: PKCS11_MODULE, PKCS11_TOKEN_LABEL or
 * PKCS11_TOKEN_LABELS, the PINs, PKCS11_SESSIONS, PKCS11_TIMEOUT_MS). `tokenLabel`/`pin` are the default
 * token; `moreTokens` are further tokens of the same module, used from the same thread.
 */
export interface Pkcs11Settings extends Pkcs11TokenLogin {
  /** The vendor's PKCS#11 library (e.g. /usr/lib/softhsm/libsofthsm2.so). */
  modulePath: string;
  /** Further tokens of the same module (PKCS11_TOKEN_LABELS after the first), each with its own PIN. */
  moreTokens?: Pkcs11TokenLogin[];
  /** Sessions kept open per token (the pool); one operation runs on a session at a time. Default 4. */
  sessions?: number;
  /**
   * Milliseconds an operation (waiting for a session included) may take before it is given up as
   * `TokenUnavailableError` (the 503 `KeyCustodyUnavailable`): a hung network HSM answers late or never.
   * Default 10 000.
   */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * Token threads terminated because a call hung, that have not exited yet (the call has not returned), at
 * most: beyond this no fresh thread is started and requests fail at once until one exits, so a token that
 * hangs every call does not leave a stuck thread behind every `timeoutMs`.
 */
const MAX_HUNG_THREADS = 2;

/** The token cannot be used now (not reachable, not found, login refused): the caller answers 503. */
export class TokenUnavailableError extends Error {
  override readonly name = "TokenUnavailableError";
}

/** The token is reachable but holds no key with this id. */
export class KeyNotInTokenError extends Error {
  override readonly name = "KeyNotInTokenError";
}

/** What the token's thread (./pkcs11-worker.mjs) does, by name: its arguments and its answer. */
export interface TokenOperations {
  /** The token's label (C_GetTokenInfo): whether it answers. */
  tokenInfo: { args: Record<string, never>; result: string };
  /** A P-256 key pair with this CKA_ID; the answer is the public key's CKA_EC_POINT. */
  generate: { args: { id: Uint8Array; label: string; usage: "sign" | "derive" }; result: Uint8Array };
  /** CKM_ECDSA over a SHA-256 digest with the private key of this CKA_ID: `r || s`. */
  sign: { args: { id: Uint8Array; digest: Uint8Array }; result: Uint8Array };
  publicKey: { args: { id: Uint8Array }; result: { point: Uint8Array; canSign: boolean } };
  /** CKM_ECDH1_DERIVE with the private key of this CKA_ID and a peer's uncompressed point: Z. */
  derive: { args: { id: Uint8Array; peerPoint: Uint8Array }; result: Uint8Array };
  /** Destroys the key pair of this CKA_ID (none there is no error). */
  destroy: { args: { id: Uint8Array }; result: undefined };
  /** Every private key's CKA_ID and CKA_LABEL. */
  list: { args: Record<string, never>; result: { id: Uint8Array; label: string }[] };
}
export type TokenOperation = keyof TokenOperations;

interface Pending {
  resolve: (value: never) => void;
  reject: (error: Error) => void;
}

interface TokenThread {
  worker: Worker;
  pending: Map<number, Pending>;
  /** Set once the thread is terminated or has failed: its operations have all been refused. */
  gone: boolean;
}

type Reply =
  | { id: number; value: unknown; error?: undefined }
  | { id: number; error: { kind: "unavailable" | "not-in-token" | "failed"; message: string } };

/**
 * The tokens of one PKCS#11 module, used from a thread of its own (./pkcs11-worker.mjs): the module is
 * loaded and initialised there once, with a logged-in pool of sessions per token and reconnection (any failure of an operation
 * drops the connection and runs the operation once more on a new one, so a token that went away and came
 * back is used again without a restart). The main thread only posts operations and waits for the answers,
 * each at most `timeoutMs`: an operation not answered by then is `TokenUnavailableError`, whatever call it
 * hangs in (synchronous PKCS#11 calls included), and the thread is terminated with every operation it had
 * (they fail the same way); the next operation starts a fresh thread, which initialises the module and
 * logs in again.
 */
export class Pkcs11Token {
  private thread: TokenThread | null = null;
  private nextId = 0;
  /** Threads terminated because a call hung, still inside the module (their call has not returned). */
  private hung = 0;
  private closed = false;

  constructor(private readonly settings: Pkcs11Settings) {}

  /** The default token's label. */
  get label(): string {
    return this.settings.tokenLabel;
  }

  /** Every token's label, the default first. */
  get labels(): readonly string[] {
    return [this.settings.tokenLabel, ...(this.settings.moreTokens ?? []).map((t) => t.tokenLabel)];
  }

  private get timeoutMs(): number {
    return this.settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /**
   * Runs an operation on the token `tokenLabel` (default: the default token) in the module's thread;
   * `TokenUnavailableError` when the token fails or is late. A timeout replaces the thread, and so the
   * connection of every token of the module (their operations in flight fail with it).
   */
  request<K extends TokenOperation>(
    op: K,
    args: TokenOperations[K]["args"],
    tokenLabel: string = this.label,
  ): Promise<TokenOperations[K]["result"]> {
    let thread: TokenThread;
    try {
      thread = this.thread ?? this.start();
    } catch (error) {
      return Promise.reject(error);
    }
    const id = this.nextId++;
    return new Promise<TokenOperations[K]["result"]>((resolve, reject) => {
      const limit = this.timeoutMs;
      const timer = setTimeout(() => {
        // Given up: the call may be stuck in native code (no timer there can interrupt it), so the thread
        // goes, with every operation it had; the next operation starts a fresh one.
        this.abandon(thread, `the token '${tokenLabel}' did not answer within ${limit} ms`, id);
      }, limit);
      thread.pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      thread.worker.postMessage({ id, op, args, token: tokenLabel });
    });
  }

  /** Whether the token answers now (it is asked for its info, which fails once it is gone). */
  async reachable(tokenLabel: string = this.label): Promise<{ reachable: boolean; reason?: string }> {
    try {
      await this.request("tokenInfo", {}, tokenLabel);
      return { reachable: true };
    } catch (error) {
      return { reachable: false, reason: reasonOf(error) };
    }
  }

  /** Closes the sessions and the module (shutdown); a thread that does not answer within the timeout is terminated. */
  async close(): Promise<void> {
    this.closed = true;
    const thread = this.thread;
    if (!thread) return;
    this.thread = null;
    const closed = new Promise<boolean>((resolve) => {
      thread.worker.on("message", (message: { type?: string }) => {
        if (message.type === "closed") resolve(true);
      });
      thread.worker.once("exit", () => resolve(false));
      setTimeout(() => resolve(false), this.timeoutMs).unref();
    });
    thread.worker.postMessage({ type: "close" });
    const answered = await closed;
    this.refuseAll(thread, `the token '${this.label}' is closed`);
    // A thread blocked in a call exits only once the call returns: not waited for (docs/key-custody.md).
    if (answered) await thread.worker.terminate();
    else void thread.worker.terminate();
  }

  private start(): TokenThread {
    if (this.closed) throw new TokenUnavailableError(`the token '${this.label}' is closed`);
    if (this.hung >= MAX_HUNG_THREADS)
      throw new TokenUnavailableError(`the token '${this.label}' has not answered an earlier operation yet`);
    const worker = new Worker(new URL("./pkcs11-worker.mjs", import.meta.url), {
      // The PIN goes to the thread as data (never logged; the thread puts only return codes in reasons).
      workerData: {
        modulePath: this.settings.modulePath,
        tokens: [
          { tokenLabel: this.settings.tokenLabel, pin: this.settings.pin },
          ...(this.settings.moreTokens ?? []).map(({ tokenLabel, pin }) => ({ tokenLabel, pin })),
        ],
        sessions: this.settings.sessions ?? 4,
        othersInside: this.hung > 0,
      },
      // It holds a few handles and the operations in flight: a small heap keeps its RSS down (ADR 0008).
      resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 32 },
    });
    // Pending operations keep the process alive through their timers; the thread itself does not.
    worker.unref();
    const thread: TokenThread = { worker, pending: new Map(), gone: false };
    worker.on("message", (reply: Reply) => {
      const pending = thread.pending.get(reply.id);
      if (!pending) return;
      thread.pending.delete(reply.id);
      if (reply.error === undefined) pending.resolve(reply.value as never);
      else pending.reject(errorOf(reply.error));
    });
    worker.on("error", (error) =>
      this.abandon(thread, `the token '${this.label}' thread failed: ${reasonOf(error)}`),
    );
    worker.once("exit", () => this.abandon(thread, `the token '${this.label}' thread exited`));
    this.thread = thread;
    return thread;
  }

  /**
   * Refuses every operation of the thread (the one that timed out with `reason`, the others as lost with
   * it) and terminates it. A thread stuck in a native call exits only once that call returns: until then it
   * counts as hung, and the thread after it keeps off finalising the module under it.
   */
  private abandon(thread: TokenThread, reason: string, timedOut?: number): void {
    if (thread.gone) return;
    thread.gone = true;
    if (this.thread === thread) this.thread = null;
    const late = thread.pending.get(timedOut ?? -1);
    thread.pending.delete(timedOut ?? -1);
    late?.reject(new TokenUnavailableError(reason));
    this.refuseAll(
      thread,
      timedOut === undefined
        ? reason
        : `the token '${this.label}' did not answer an earlier operation in time`,
    );
    if (timedOut === undefined) return;
    this.hung++;
    thread.worker.once("exit", () => {
      this.hung--;
      if (this.hung === 0) this.thread?.worker.postMessage({ type: "others-left" });
    });
    void thread.worker.terminate();
  }

  private refuseAll(thread: TokenThread, reason: string): void {
    for (const pending of thread.pending.values()) pending.reject(new TokenUnavailableError(reason));
    thread.pending.clear();
  }
}

function errorOf(error: { kind: string; message: string }): Error {
  if (error.kind === "not-in-token") return new KeyNotInTokenError(error.message);
  if (error.kind === "unavailable") return new TokenUnavailableError(error.message);
  return new Error(error.message);
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
