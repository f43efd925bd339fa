import { dispatchOutboxEvents, sweepExpired } from "@cred/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { receiver, until, webhookHelpers } from "./fixtures/webhooks";
import { call, startTestServer, type TestServer } from "./harness";

/** The outbox fan-out to subscriptions (dispatchOutboxEvents) and the sweeper's expiry, purges and retention. */

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

const { worker, tenant, subscribe, issue, deliveries, prisma } = webhookHelpers(() => t);

describe("fan-out (dispatchOutboxEvents)", () => {
  const deliveriesOfEvent = (eventId: string) =>
    prisma().webhookDelivery.findMany({ where: { eventId }, orderBy: { subscriptionId: "asc" } });
  const drain = async () => {
    while ((await dispatchOutboxEvents(t.server.deps, { batchSize: 50 })) === 50) {}
  };

  it("delivers an event to each live subscription of its partition that wants it and existed when it occurred", async () => {
    await drain();
    const a = await tenant();
    const b = await tenant();
    const url = "http://127.0.0.1:9/hook";
    const all = await subscribe(a.key, url);
    const created = await subscribe(a.key, url, ["issuance.transaction.created"]);
    await subscribe(a.key, url, ["credential.revoked"]); // another type
    const disabled = await subscribe(a.key, url); // as a 410 Gone leaves it
    await prisma().webhookSubscription.update({ where: { id: disabled.id }, data: { status: "disabled" } });
    const deleted = await subscribe(a.key, url);
    expect((await call(t, "DELETE", `/management/webhooks/${deleted.id}`, { key: a.key })).status).toBe(200);
    await subscribe(b.key, url); // another tenant
    const tx = await issue(a.key, a.issuer);
    const later = await subscribe(a.key, url); // created after the event occurred
    await drain();
    const event = await prisma().outboxEvent.findFirstOrThrow({
      where: { type: "issuance.transaction.created", payload: { path: ["transactionId"], equals: tx.id } },
    });
    expect(event.dispatchedAt).not.toBeNull();
    const made = await deliveriesOfEvent(event.id);
    expect(made.map((d) => d.subscriptionId).sort()).toEqual([all.id, created.id].sort());
    expect(made.every((d) => d.status === "pending" && d.tenantId === a.tenantId)).toBe(true);
    expect(made.map((d) => d.subscriptionId)).not.toContain(later.id);
  });

  it("two dispatchers at once mark each event once and create each delivery once", async () => {
    await drain();
    const a = await tenant();
    const sub = await subscribe(a.key, "http://127.0.0.1:9/hook");
    const txs = await Promise.all(Array.from({ length: 12 }, () => issue(a.key, a.issuer)));
    await Promise.all([drain(), drain(), drain()]);
    const events = await prisma().outboxEvent.findMany({
      where: { tenantId: a.tenantId, type: "issuance.transaction.created" },
    });
    expect(events).toHaveLength(txs.length);
    expect(events.every((e) => e.dispatchedAt !== null)).toBe(true);
    const made = await prisma().webhookDelivery.findMany({ where: { subscriptionId: sub.id } });
    expect(made).toHaveLength(txs.length);
    expect(new Set(made.map((d) => d.eventId)).size).toBe(txs.length);
  });

  it("marks events outside the catalogue dispatched without delivering them", async () => {
    await drain();
    const a = await tenant();
    await subscribe(a.key, "http://127.0.0.1:9/hook");
    await prisma().outboxEvent.create({
      data: {
        id: "evt_internal_only",
        tenantId: a.tenantId,
        environment: "sandbox",
        type: "internal.thing",
        payload: {},
      },
    });
    await drain();
    expect(
      (await prisma().outboxEvent.findUniqueOrThrow({ where: { id: "evt_internal_only" } })).dispatchedAt,
    ).not.toBeNull();
    expect(await deliveriesOfEvent("evt_internal_only")).toEqual([]);
  });

  it("writes an event that no active subscription can receive already dispatched, with no deliveries", async () => {
    await drain();
    const quiet = await tenant(); // no subscription: its issuer and configuration events, then issuance
    const tx = await issue(quiet.key, quiet.issuer);
    const quietEvents = await prisma().outboxEvent.findMany({ where: { tenantId: quiet.tenantId } });
    expect(quietEvents.map((e) => e.type)).toEqual(
      expect.arrayContaining(["credential_configuration.created", "issuance.transaction.created"]),
    );
    // Before any fan-out: both write paths (Prisma transactions and single statements) did it.
    for (const e of quietEvents)
      expect(e).toMatchObject({ deliveriesCreated: 0, dispatchedAt: expect.any(Date) });

    // A disabled subscription receives nothing either; an active one makes the worker fan events out.
    const off = await subscribe(quiet.key, "http://127.0.0.1:9/hook");
    await prisma().webhookSubscription.update({ where: { id: off.id }, data: { status: "disabled" } });
    const whileDisabled = await issue(quiet.key, quiet.issuer);
    const on = await subscribe(quiet.key, "http://127.0.0.1:9/hook");
    const withSubscriber = await issue(quiet.key, quiet.issuer);
    const eventOf = (id: string) =>
      prisma().outboxEvent.findFirstOrThrow({
        where: { type: "issuance.transaction.created", payload: { path: ["transactionId"], equals: id } },
      });
    expect((await eventOf(whileDisabled.id)).dispatchedAt).not.toBeNull();
    expect((await eventOf(withSubscriber.id)).dispatchedAt).toBeNull();
    await drain();
    const fannedOut = await eventOf(withSubscriber.id);
    expect(fannedOut).toMatchObject({ deliveriesCreated: 1, dispatchedAt: expect.any(Date) });
    expect((await deliveriesOfEvent(fannedOut.id)).map((d) => d.subscriptionId)).toEqual([on.id]);
    for (const id of [tx.id, whileDisabled.id])
      expect(await deliveriesOfEvent((await eventOf(id)).id)).toEqual([]);
  });
});

describe("sweeper", () => {
  it("expires an unread pending issuance transaction once, with its event", async () => {
    const { key, issuer } = await tenant();
    const tx = await issue(key, issuer, { callbackReference: "late-1" });
    const later = new Date(Date.now() + 3600_000);
    const deps = t.server.deps;
    const first = await sweepExpired(deps, { now: later });
    expect(first.issuanceTransactionsExpired).toBeGreaterThanOrEqual(1);
    await sweepExpired(deps, { now: later });
    const events = await prisma().outboxEvent.findMany({ where: { type: "issuance.transaction.expired" } });
    const mine = events.filter((e) => (e.payload as any).transactionId === tx.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.payload).toMatchObject({ status: "expired", callbackReference: "late-1" });
    const row = await prisma().issuanceTransaction.findUniqueOrThrow({ where: { id: tx.id } });
    expect(row).toMatchObject({ status: "expired", claimsCipher: null, offerCipher: null });
    expect(row.expiryEventAt).not.toBeNull();
    const read = await call(t, "GET", `/v1.0/issuance-transactions/${tx.id}`, { key });
    expect(read.body.data.status).toBe("expired");
    // The offer can no longer be cancelled.
    expect((await call(t, "POST", `/v1.0/issuance-transactions/${tx.id}/cancel`, { key })).status).toBe(409);
  });

  it("purges expired wallet nonces, access tokens, DPoP proofs, authorization requests and idempotency records in chunks, and keeps live ones", async () => {
    const past = new Date(Date.now() - 1000);
    const stamp = Date.now();
    await prisma().walletNonce.createMany({
      // Ties and distinct times across the chunks of 10, which each start where the last one ended.
      data: Array.from({ length: 25 }, (_, i) => ({
        valueHash: `n-${stamp}-${i}`,
        purpose: "vci",
        expiresAt: new Date(past.getTime() - (i % 3) * 1000),
      })),
    });
    await prisma().walletNonce.create({
      data: { valueHash: `live-${stamp}`, purpose: "vci", expiresAt: new Date(Date.now() + 60_000) },
    });
    await prisma().accessToken.create({
      data: { tokenHash: `a-${stamp}`, transactionId: "itx_x", expiresAt: past },
    });
    await prisma().dpopProofUse.createMany({
      data: [
        { key: `dpop-old-${stamp}`, expiresAt: past },
        { key: `dpop-live-${stamp}`, expiresAt: new Date(Date.now() + 60_000) },
      ],
    });
    const authorizationRequest = (id: string, expiresAt: Date) => ({
      id,
      issuerId: "iss_x",
      transactionId: "itx_x",
      requestUriHash: id,
      clientId: "wallet",
      redirectUri: "https://wallet.example/cb",
      codeChallenge: "c",
      requestUriExpiresAt: expiresAt,
      expiresAt,
    });
    await prisma().authorizationRequest.createMany({
      data: [
        authorizationRequest(`par-old-${stamp}`, past),
        authorizationRequest(`par-live-${stamp}`, new Date(Date.now() + 60_000)),
      ],
    });
    await prisma().idempotencyRecord.create({
      data: {
        id: `idem-${stamp}`,
        tenantId: "ten_x",
        environment: "sandbox",
        operation: "op",
        key: `k-${stamp}`,
        fingerprint: "f",
        state: "completed",
        expiresAt: past,
      },
    });
    const report = await sweepExpired(t.server.deps, { purgeChunk: 10 });
    expect(report.idempotencyRecordsPurged).toBeGreaterThanOrEqual(1);
    expect(await prisma().idempotencyRecord.count({ where: { id: `idem-${stamp}` } })).toBe(0);
    expect(report.walletNoncesPurged).toBeGreaterThanOrEqual(25);
    expect(report.accessTokensPurged).toBeGreaterThanOrEqual(1);
    expect(await prisma().walletNonce.count({ where: { expiresAt: { lt: new Date() } } })).toBe(0);
    expect(await prisma().accessToken.count({ where: { expiresAt: { lt: new Date() } } })).toBe(0);
    expect(await prisma().walletNonce.count({ where: { valueHash: `live-${stamp}` } })).toBe(1);
    expect(report.dpopProofsPurged).toBeGreaterThanOrEqual(1);
    expect(await prisma().dpopProofUse.count({ where: { key: { endsWith: String(stamp) } } })).toBe(1);
    expect(report.authorizationRequestsPurged).toBeGreaterThanOrEqual(1);
    const requestsLeft = await prisma().authorizationRequest.findMany({
      where: { id: { endsWith: String(stamp) } },
    });
    expect(requestsLeft.map((r) => r.id)).toEqual([`par-live-${stamp}`]);
  });

  it("purges outbox events nobody received a day after their fan-out, and keeps the rest", async () => {
    const stamp = Date.now();
    const dayAndMore = new Date(Date.now() - 25 * 3_600_000);
    const event = (id: string, dispatchedAt: Date | null) =>
      prisma().outboxEvent.create({
        data: {
          id,
          tenantId: "ten_x",
          environment: "sandbox",
          type: "credential.revoked",
          payload: {},
          dispatchedAt,
        },
      });
    await event(`evt_old_unreceived_${stamp}`, dayAndMore);
    await event(`evt_old_received_${stamp}`, dayAndMore);
    await event(`evt_recent_${stamp}`, new Date());
    await event(`evt_pending_${stamp}`, null);
    await prisma().webhookDelivery.create({
      data: {
        id: `whd_keep_${stamp}`,
        tenantId: "ten_x",
        environment: "sandbox",
        subscriptionId: `whs_x_${stamp}`,
        eventId: `evt_old_received_${stamp}`,
        eventType: "credential.revoked",
        status: "succeeded",
      },
    });
    const report = await sweepExpired(t.server.deps);
    expect(report.outboxEventsPurged).toBeGreaterThanOrEqual(1);
    const left = await prisma().outboxEvent.findMany({
      where: { id: { contains: `_${stamp}` } },
      select: { id: true },
    });
    expect(left.map((e) => e.id).sort()).toEqual(
      [`evt_old_received_${stamp}`, `evt_pending_${stamp}`, `evt_recent_${stamp}`].sort(),
    );
  });
});

describe("delivery retention (sweeper)", () => {
  const DAY = 86_400_000;

  /** Moves deliveries, their attempts and their events `days` into the past, as if they were that old. */
  async function age(deliveryIds: string[], days: number) {
    const at = new Date(Date.now() - days * DAY);
    const rows = await prisma().webhookDelivery.findMany({ where: { id: { in: deliveryIds } } });
    await prisma().webhookDelivery.updateMany({
      where: { id: { in: deliveryIds } },
      data: { createdAt: at, updatedAt: at, lastAttemptAt: at },
    });
    await prisma().webhookAttempt.updateMany({
      where: { deliveryId: { in: deliveryIds } },
      data: { startedAt: at },
    });
    await prisma().outboxEvent.updateMany({
      where: { id: { in: rows.map((d) => d.eventId) } },
      data: { occurredAt: at, dispatchedAt: at },
    });
  }

  it("deletes finished deliveries older than the period (attempts, then events), in every tenant; keeps recent and pending ones", async () => {
    const rx = await receiver();
    const a = await tenant();
    const b = await tenant();
    const created = ["issuance.transaction.created"];
    const ok = await subscribe(a.key, rx.url, created);
    await subscribe(a.key, "http://127.0.0.1:9/hook", created); // refused: one attempt, then failed
    await subscribe(b.key, rx.url, created);
    type Tx = Awaited<ReturnType<typeof issue>>;
    const txs: Tx[] = [];
    for (let i = 0; i < 5; i++) txs.push(await issue(a.key, a.issuer));
    const foreignTx = await issue(b.key, b.issuer);

    const w = worker({ delivery: { retryScheduleMs: [] } });
    const all = await until("every delivery final", async () => {
      await w.runOnce();
      const rows = await prisma().webhookDelivery.findMany({
        where: { tenantId: { in: [a.tenantId, b.tenantId] } },
      });
      return rows.length === 11 && rows.every((d) => d.status !== "pending") && rows;
    });
    const events = await prisma().outboxEvent.findMany({ where: { id: { in: all.map((d) => d.eventId) } } });
    // The fan-out records how many deliveries each event got (the sweeper reads only events with none).
    for (const e of events) expect(e.deliveriesCreated).toBe(e.tenantId === a.tenantId ? 2 : 1);
    const txOf = new Map(events.map((e) => [e.id, (e.payload as { transactionId: string }).transactionId]));
    const of = (tx: { id: string }, status: "succeeded" | "failed") => {
      const d = all.find((x) => txOf.get(x.eventId) === tx.id && x.status === status);
      if (!d) throw new Error(`no ${status} delivery for ${tx.id}`);
      return d;
    };
    const eventOf = (tx: { id: string }) => of(tx, "succeeded").eventId;
    const redeliver = (id: string) =>
      call(t, "POST", `/management/webhook-deliveries/${id}/redeliver`, { key: a.key });
    // The age the rule reads: a finished delivery's updatedAt is its last attempt.
    for (const d of all) expect(d.updatedAt.getTime()).toBeGreaterThanOrEqual(d.lastAttemptAt!.getTime());

    const [tx0, tx1, tx2, tx3, tx4] = txs as [Tx, Tx, Tx, Tx, Tx];
    // tx0: both deliveries 31 days old → both go, and then their event.
    await age([of(tx0, "succeeded").id, of(tx0, "failed").id], 31);
    // tx1: the succeeded one is old, the failed one recent → only the old one goes; the event stays.
    await age([of(tx1, "succeeded").id], 31);
    // tx2: both old, but one is pending again (a retry scheduled) → the pending one stays, and the event.
    await age([of(tx2, "succeeded").id, of(tx2, "failed").id], 31);
    await prisma().webhookDelivery.update({
      where: { id: of(tx2, "succeeded").id },
      data: {
        status: "pending",
        nextAttemptAt: new Date(Date.now() + 3_600_000),
        updatedAt: new Date(Date.now() - 31 * DAY),
      },
    });
    // tx3: 29 days old → within the period: everything stays.
    await age([of(tx3, "succeeded").id, of(tx3, "failed").id], 29);
    // tx4: old, but redelivered through the API now → pending, its clock restarts: it stays.
    await age([of(tx4, "succeeded").id, of(tx4, "failed").id], 31);
    expect((await redeliver(of(tx4, "succeeded").id)).status).toBe(202);
    // The other tenant's old delivery goes like tenant A's: retention is global.
    await age([of(foreignTx, "succeeded").id], 31);

    // The period comes from the configuration: with 60 days nothing of this is old enough.
    const longer = await sweepExpired({
      ...t.server.deps,
      config: { ...t.server.deps.config, webhookDeliveryRetentionDays: 60 },
    });
    expect(longer.webhookDeliveriesPurged).toBe(0);
    expect(await prisma().webhookDelivery.count({ where: { id: { in: all.map((d) => d.id) } } })).toBe(11);

    expect(t.server.deps.config.webhookDeliveryRetentionDays).toBe(30);
    const report = await sweepExpired(t.server.deps, { purgeChunk: 2 });
    const gone = [
      of(tx0, "succeeded"),
      of(tx0, "failed"),
      of(tx1, "succeeded"),
      of(tx2, "failed"),
      of(tx4, "failed"),
      of(foreignTx, "succeeded"),
    ].map((d) => d.id);
    expect(report.webhookDeliveriesPurged).toBeGreaterThanOrEqual(gone.length);
    const kept = all.map((d) => d.id).filter((id) => !gone.includes(id));
    expect(kept).toHaveLength(5);

    // Over the API: the deliveries list shows exactly the kept ones; a purged delivery is not found.
    const listedA = (await deliveries(a.key)).map((d) => d.id).sort();
    expect(listedA).toEqual([...kept].sort());
    expect(await deliveries(b.key)).toEqual([]);
    expect((await redeliver(of(tx0, "succeeded").id)).status).toBe(404);
    expect(
      (await deliveries(a.key, `&subscriptionId=${ok.id}`)).find((d) => d.id === of(tx4, "succeeded").id),
    ).toMatchObject({ status: "pending" });

    // Attempts go with their delivery; an event goes with its last delivery (tx0's, the foreign one).
    expect(await prisma().webhookAttempt.count({ where: { deliveryId: { in: gone } } })).toBe(0);
    for (const id of kept) expect(await prisma().webhookAttempt.count({ where: { deliveryId: id } })).toBe(1);
    expect(report.outboxEventsPurged).toBe(2);
    const leftEvents = await prisma().outboxEvent.findMany({
      where: { id: { in: [tx0, tx1, tx2, tx3, tx4, foreignTx].map(eventOf) } },
      select: { id: true },
    });
    expect(leftEvents.map((e) => e.id).sort()).toEqual([tx1, tx2, tx3, tx4].map(eventOf).sort());
    await rx.close();
  });
});
