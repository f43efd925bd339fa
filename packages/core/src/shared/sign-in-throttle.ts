import { createHash } from "node:crypto";
import type pg from "pg";
import { RateLimiterRes } from "rate-limiter-flexible";
import { DomainError } from "./errors";
import { type LimiterStore, openLimiterStore } from "./rate-limit";

/**
 * When failed console sign-ins make a client wait (OWASP Authentication Cheat Sheet: throttle with
 * growing delays rather than lock the account; per account and client). A client is an address as the
 * API derives it (apps/api: `TRUST_PROXY`, IPv6 by /64). docs/operations.md, "Console sign-in".
 */
export interface SignInThrottlePolicy {
  /** Failures of one account from one client before that client waits to try it again. */
  pairFreeFailures: number;
  /** Failures from one client over all accounts before it waits (guessing across many accounts). */
  clientFreeFailures: number;
  /**
   * Failures of one account from all clients after which every client gets only one free failure
   * there (guessing from many addresses). A client that has not failed is still let in.
   */
  accountFreeFailures: number;
  /** The first wait; every further failure doubles it, up to `maxWaitSeconds`. */
  firstWaitSeconds: number;
  maxWaitSeconds: number;
  /** How long failures are counted, from the first one; a correct password clears its pair's. */
  windowSeconds: number;
}

export const SIGN_IN_THROTTLE: SignInThrottlePolicy = {
  pairFreeFailures: 5,
  clientFreeFailures: 20,
  accountFreeFailures: 50,
  firstWaitSeconds: 30,
  maxWaitSeconds: 15 * 60,
  windowSeconds: 24 * 3600,
};

/** Seconds a key waits after its `failures`-th failure when the first `free` ones cost nothing. */
export function backoffSeconds(
  policy: Pick<SignInThrottlePolicy, "firstWaitSeconds" | "maxWaitSeconds">,
  free: number,
  failures: number,
): number {
  if (failures < free) return 0;
  const doublings = Math.min(failures - free, 30);
  return Math.min(policy.maxWaitSeconds, policy.firstWaitSeconds * 2 ** doublings);
}

/** "25 seconds", "1 minute", "15 minutes": how long until the next attempt, for a person. */
export function describeWait(seconds: number): string {
  if (seconds < 90) return seconds === 1 ? "1 second" : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minutes`;
}

export interface SignInAttempt {
  /** Seconds this client must wait before trying the account again, should this attempt fail (0: none). */
  readonly waitIfFailed: number;
  /** The password was right: the account's failures from this client are forgotten; this attempt counts as none. */
  succeeded(): Promise<void>;
}

export interface SignInThrottle {
  /**
   * Counts an attempt before the password is checked (so a burst of parallel guesses counts in full).
   * Throws `Throttled` (429, `Retry-After`) when the client must wait first; nothing is counted then.
   */
  begin(email: string, clientAddress: string): Promise<SignInAttempt>;
}

/** Counts never run out: the counters only count; the gates decide. */
const UNLIMITED = 2 ** 31 - 1;

/** Fixed-length keys: an email address may be 320 characters, the store's key column holds 255. */
function keyOf(...parts: string[]): string {
  return createHash("sha256").update(parts.join("\n")).digest("base64url");
}

function throttled(msBeforeNext: number): DomainError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new DomainError(
    "Throttled",
    `Too many failed sign-ins from your address. Try again in ${describeWait(seconds)}.`,
    undefined,
    { "Retry-After": String(seconds) },
  );
}

/**
 * Failure counts per account and client (pair), per client and per account, in the process's
 * rate-limit store (memory on the embedded database, the `rate_limits` table on PostgreSQL). Past its
 * free failures a pair or client goes through a gate that admits one attempt and then stays shut for
 * that attempt's wait, so parallel attempts cannot slip through together.
 */
export async function createSignInThrottle(
  policy: SignInThrottlePolicy,
  pool?: pg.Pool,
): Promise<SignInThrottle> {
  const counter = (keyPrefix: string) =>
    openLimiterStore({ keyPrefix, points: UNLIMITED, durationSeconds: policy.windowSeconds }, pool);
  // One attempt per opening; each admission sets its own duration (the wait after it).
  const gate = (keyPrefix: string) => openLimiterStore({ keyPrefix, points: 1, durationSeconds: 1 }, pool);
  const [pairs, clients, accounts, pairGates, clientGates] = await Promise.all([
    counter("sign-in-pair"),
    counter("sign-in-client"),
    counter("sign-in-account"),
    gate("sign-in-pair-gate"),
    gate("sign-in-client-gate"),
  ]);

  /** Admits the attempt through `store`'s gate for `key`, shutting it for `seconds`: 0, or how long it stays shut. */
  async function pass(store: LimiterStore, key: string, seconds: number): Promise<number> {
    try {
      await store.consume(key, 1, { customDuration: seconds });
      return 0;
    } catch (res) {
      if (res instanceof RateLimiterRes) return Math.max(1, res.msBeforeNext);
      throw res;
    }
  }

  return {
    async begin(email, clientAddress) {
      const account = keyOf(email.trim().toLowerCase());
      const client = keyOf(clientAddress);
      const pair = keyOf(account, client);
      // A shut gate refuses at once, counting and storing nothing (a refused attempt costs no memory).
      const shut = await Promise.all([pairGates.get(pair), clientGates.get(client)]);
      const shutForNow = Math.max(0, ...shut.map((res) => res?.msBeforeNext ?? 0));
      if (shutForNow > 0) throw throttled(shutForNow);
      const [pairCount, clientCount, accountCount] = await Promise.all([
        pairs.consume(pair),
        clients.consume(client),
        accounts.consume(account),
      ]);
      // Counts include this attempt: failures before it are one fewer.
      const accountUnderAttack = accountCount.consumedPoints - 1 >= policy.accountFreeFailures;
      const pairFree = accountUnderAttack ? 1 : policy.pairFreeFailures;
      const pairWait = backoffSeconds(policy, pairFree, pairCount.consumedPoints);
      const clientWait = backoffSeconds(policy, policy.clientFreeFailures, clientCount.consumedPoints);

      const admitted: (() => Promise<unknown>)[] = [];
      let shutForMs = 0;
      for (const [store, key, wait] of [
        [pairGates, pair, pairWait],
        [clientGates, client, clientWait],
      ] as const) {
        if (wait === 0) continue;
        const refusedMs = await pass(store, key, wait);
        if (refusedMs) {
          // Stop at the first shut gate. Trying the next one anyway could shut it against the attempt
          // that holds this one, and both would be refused; in a fixed order one of them gets through.
          shutForMs = refusedMs;
          break;
        }
        admitted.push(() => store.delete(key));
      }
      if (shutForMs) {
        // Another attempt went through the gate meanwhile. Refused before the password was looked
        // at, this one counts nowhere.
        await Promise.all([
          ...admitted.map((reopen) => reopen()),
          pairs.reward(pair),
          clients.reward(client),
          accounts.reward(account),
        ]);
        throw throttled(shutForMs);
      }
      return {
        waitIfFailed: Math.max(pairWait, clientWait),
        async succeeded() {
          await Promise.all([
            pairs.delete(pair),
            pairGates.delete(pair),
            clients.reward(client),
            accounts.reward(account),
          ]);
        },
      };
    },
  };
}
