import type { UnitOfWork } from "@cred/db";
import { describe, expect, it } from "vitest";
import { Caches } from "../shared/caches";
import { createdSessions } from "./created-sessions";
import {
  createdSessionsCache,
  type VerificationSessionRow,
  verificationRepository,
} from "./verification-repository";

const SCOPE = { tenantId: "ten_1", environment: "sandbox" as const };

function session(state: string, overrides: Partial<VerificationSessionRow> = {}): VerificationSessionRow {
  const now = Date.now();
  return {
    id: `vs_${state}`,
    ...SCOPE,
    policyId: "vpol_1",
    policyIdentifier: "p",
    purpose: null,
    status: "pending",
    rules: {},
    state,
    nonce: "n",
    clientId: "x509_hash:abc",
    responseMode: "direct_post",
    invocation: "openid",
    relyingPartyId: null,
    transactionData: null,
    dcApi: null,
    requestObject: null,
    encryptionKeyCipher: null,
    responseCodeHash: null,
    resultCipher: null,
    reasonCodes: [],
    decidedAt: null,
    expiresAt: new Date(now + 60_000),
    createdAt: new Date(now),
    updatedAt: new Date(now),
    ...overrides,
  };
}

/**
 * A unit of work inside a transaction that is never sent to a database: every statement reports one
 * row, and the effects registered with `afterCommit` wait for `commit()`.
 */
function transactionUnit() {
  const effects: (() => void)[] = [];
  const unit: UnitOfWork = {
    prisma: {
      verificationSession: { updateMany: async () => ({ count: 1 }) },
    } as unknown as UnitOfWork["prisma"],
    sql: { query: async () => ({ rows: [{ id: "x" }] as never[], affected: 1 }) },
    inTransaction: true,
    transaction: (fn) => fn(unit),
    afterCommit: (effect) => effects.push(effect),
  };
  const commit = () => {
    for (const effect of effects.splice(0)) effect();
  };
  return { unit, commit };
}

const EVENT = { scope: SCOPE, type: "verification.session.created", data: {} };

describe("created sessions (verificationRepository writes, createdSessions reads)", () => {
  it("remembers a created session only once its insert commits", async () => {
    const caches = new Caches();
    const { unit, commit } = transactionUnit();
    await verificationRepository.insertSessionWithEvent(unit, caches, session("s1"), EVENT);
    expect(createdSessions.peek(caches, "s1")).toBeNull();
    commit();
    expect(createdSessions.peek(caches, "s1")?.id).toBe("vs_s1");
  });

  it("never remembers a session whose transaction rolls back", async () => {
    const caches = new Caches();
    const { unit } = transactionUnit();
    await verificationRepository.insertSessionWithEvent(unit, caches, session("s2"), EVENT);
    // No commit: the effects are dropped with the transaction.
    expect(createdSessions.peek(caches, "s2")).toBeNull();
  });

  it("forgets a session once a transition or a decision commits", async () => {
    const caches = new Caches();
    caches.of(createdSessionsCache).set("s3", session("s3"));
    caches.of(createdSessionsCache).set("s4", session("s4"));
    const { unit, commit } = transactionUnit();
    await verificationRepository.transitionFromPending(unit, caches, session("s3"), "cancelled");
    await verificationRepository.decideFromPending(
      unit,
      caches,
      session("s4"),
      { status: "verified", resultCipher: "c", decidedAt: new Date(), responseCodeHash: null },
      { scope: SCOPE, type: "verification.session.verified", data: {} },
    );
    expect(createdSessions.peek(caches, "s3")).not.toBeNull();
    expect(createdSessions.peek(caches, "s4")).not.toBeNull();
    commit();
    expect(createdSessions.peek(caches, "s3")).toBeNull();
    expect(createdSessions.peek(caches, "s4")).toBeNull();
  });

  it("serves only pending, unexpired sessions; take hands one out once", () => {
    const caches = new Caches();
    const byState = caches.of(createdSessionsCache);
    byState.set("expired", session("expired", { expiresAt: new Date(Date.now() - 1) }));
    byState.set("decided", session("decided", { status: "verified" }));
    byState.set("live", session("live"));
    expect(createdSessions.peek(caches, "expired")).toBeNull();
    expect(byState.peek("expired")).toBeUndefined();
    expect(createdSessions.take(caches, "decided")).toBeNull();
    expect(createdSessions.peek(caches, "live")?.state).toBe("live");
    expect(createdSessions.take(caches, "live")?.state).toBe("live");
    expect(createdSessions.take(caches, "live")).toBeNull();
    // Each Caches is its own: another server never sees these entries.
    expect(createdSessions.peek(new Caches(), "live")).toBeNull();
  });
});
