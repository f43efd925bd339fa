import type { Caches } from "../shared/caches";
import { createdSessionsCache, type VerificationSessionRow } from "./verification-repository";

/**
 * The sessions this process has just created and committed (`createdSessionsCache`: the repository
 * remembers a session when its insert commits and forgets it when a transition commits), as the wallet's
 * request-object fetch and answer read them: only while pending and unexpired.
 */
const live = (row: VerificationSessionRow | undefined, now: number) =>
  row && row.status === "pending" && row.expiresAt.getTime() > now ? row : null;

export const createdSessions = {
  /** The pending, unexpired session for `state`, kept for the answer. */
  peek(caches: Caches, state: string, now = Date.now()): VerificationSessionRow | null {
    const byState = caches.of(createdSessionsCache);
    const kept = byState.peek(state);
    const row = live(kept, now);
    if (kept && !row) byState.delete(state);
    return row;
  },
  /** As `peek`, but hands the entry out for the last time. */
  take(caches: Caches, state: string, now = Date.now()): VerificationSessionRow | null {
    return live(caches.of(createdSessionsCache).take(state), now);
  },
};
