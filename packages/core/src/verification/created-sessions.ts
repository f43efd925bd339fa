import { BoundedMap } from "../shared/bounded-map";
import type { VerificationSessionRow } from "./verification-repository";

/**
 * Sessions this process has just created and committed, by `state`, so the wallet's request-object fetch
 * and its answer (normally seconds later) need no read. An optimisation only: the decision statement
 * still requires the session to be pending and unexpired in the database. The answer takes the entry;
 * a decision, cancellation or expiry in this process forgets it; anything else reads the database. With
 * several API processes, a cancellation on another one can leave the request object servable here, and
 * the answer is then refused by the decision statement.
 */
const MAX_ENTRIES = 5_000;
const byState = new BoundedMap<string, VerificationSessionRow>(MAX_ENTRIES);

const live = (row: VerificationSessionRow | undefined, now: number) =>
  row && row.status === "pending" && row.expiresAt.getTime() > now ? row : null;

export const createdSessions = {
  remember(row: VerificationSessionRow) {
    byState.set(row.state, row);
  },
  /** The pending, unexpired session for `state`, kept for the answer. */
  peek(state: string, now = Date.now()): VerificationSessionRow | null {
    const row = live(byState.get(state), now);
    if (!row) byState.delete(state);
    return row;
  },
  /** As `peek`, but hands the entry out for the last time. */
  take(state: string, now = Date.now()): VerificationSessionRow | null {
    return live(byState.take(state), now);
  },
  forget(state: string) {
    byState.delete(state);
  },
};
