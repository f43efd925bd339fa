import { webhookBodySchema } from "@cred/contracts/webhook-event-catalogue";
import type { WebhookEventType } from "@cred/contracts/webhook-events";
import { dispatchOutboxEvents } from "@cred/core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Receiver, receiver, until, verify, webhookHelpers } from "./fixtures/webhooks";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { redeemOffer } from "./wallet-client";

/** Webhook delivery by the worker: signatures, retries, leases, keep-alive, disabling, secret rotation. */

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

const { worker, tenant, subscribe, issue, deliveries, prisma, attemptsOf } = webhookHelpers(() => t);

describe("delivery", () => {
  let rx: Receiver;
  beforeAll(async () => {
    rx = await receiver();
  });
  afterAll(() => rx.close());

  it("signs every delivery (standardwebhooks verifies it) and sends ids and references, never claims", async () => {
    const { key, issuer } = await tenant();
    const sub = await subscribe(key, rx.url);
    const tx = await issue(key, issuer, {
      callbackReference: "order-77",
      externalSubjectReference: "subj-9",
    });
    const flow = await redeemOffer(tx.credentialOffer);
    expect(flow.credentialRes.status).toBe(200);
    await worker().runOnce();

    const mine = rx.received.filter((r) => r.body.includes(tx.id));
    expect(mine.map((r) => verify(sub.secret, r).type).sort()).toEqual([
      "issuance.transaction.completed",
      "issuance.transaction.created",
    ]);
    for (const r of mine) {
      const body = verify(sub.secret, r);
      expect(r.headers["webhook-id"]).toMatch(/^evt_/);
      expect(Number(r.headers["webhook-timestamp"])).toBeCloseTo(Date.now() / 1000, -2);
      expect(r.headers["content-type"]).toBe("application/json");
      expect(Object.keys(body).sort()).toEqual(["data", "timestamp", "type"]);
      webhookBodySchema(body.type as WebhookEventType).parse(body);
      expect(body.data).toMatchObject({
        transactionId: tx.id,
        callbackReference: "order-77",
        externalSubjectReference: "subj-9",
      });
      // No claim value travels in an event.
      for (const value of ["Erika", "Mustermann", "1984-01-26", "4711", "given_name", "birthdate"]) {
        expect(r.body).not.toContain(value);
      }
      // A wrong secret does not verify.
      expect(() =>
        new Webhook(`whsec_${Buffer.alloc(24, 1).toString("base64")}`).verify(r.body, r.headers),
      ).toThrow();
    }
    const listed = await deliveries(key, `&subscriptionId=${sub.id}`);
    expect(listed.length).toBeGreaterThanOrEqual(2);
    for (const d of listed) {
      expect(d).toMatchObject({
        status: "succeeded",
        attempts: 1,
        lastResponseStatus: 204,
        nextAttemptAt: null,
      });
    }
  });

  it("receiver down, then up: retried with backoff, every attempt recorded, then delivered", async () => {
    const rx2 = await receiver();
    const { key, issuer } = await tenant();
    const sub = await subscribe(key, rx2.url, ["issuance.transaction.created"]);
    await rx2.down();
    const tx = await issue(key, issuer);
    const w = worker();
    w.start();
    try {
      const [delivery] = await until("two failed attempts", async () => {
        const list = await deliveries(key, `&subscriptionId=${sub.id}`);
        return list[0]?.attempts >= 2 && list;
      });
      expect(delivery).toMatchObject({
        status: "pending",
        lastResponseStatus: null,
        lastError: expect.stringMatching(/Connection refused/),
      });
      expect(delivery.nextAttemptAt).not.toBeNull();
      await rx2.up();
      const done = await until("delivery", async () => {
        const list = await deliveries(key, `&subscriptionId=${sub.id}`);
        return list[0]?.status === "succeeded" && list[0];
      });
      expect(done.attempts).toBeGreaterThanOrEqual(3);
      // The list shows every attempt, oldest first.
      expect(done.attemptLog.map((a: { attempt: number }) => a.attempt)).toEqual(
        Array.from({ length: done.attempts }, (_, i) => i + 1),
      );
      expect(done.attemptLog[0]).toMatchObject({
        responseStatus: null,
        error: expect.stringMatching(/refused/),
      });
      expect(done.attemptLog.at(-1)).toMatchObject({ responseStatus: 204, error: null });
      const attempts = await attemptsOf(done.id);
      expect(attempts.map((a) => a.attemptNumber)).toEqual(attempts.map((_, i) => i + 1));
      expect(attempts.at(-1)).toMatchObject({ responseStatus: 204, error: null });
      for (const a of attempts.slice(0, -1)) {
        expect(a.responseStatus).toBeNull();
        expect(a.error).toMatch(/Connection refused/);
      }
      // Backoff: consecutive attempts are at least the scheduled delay apart.
      for (let i = 1; i < attempts.length; i++) {
        expect(
          attempts[i]!.startedAt.getTime() - attempts[i - 1]!.startedAt.getTime(),
        ).toBeGreaterThanOrEqual(140);
      }
      const got = rx2.received.filter((r) => r.body.includes(tx.id));
      expect(got).toHaveLength(1);
      expect(verify(sub.secret, got[0]!).data.transactionId).toBe(tx.id);
    } finally {
      await w.stop();
      await rx2.close();
    }
  });

  it("a receiver's Retry-After pushes the next attempt out (never sooner than the schedule)", async () => {
    const rx6 = await receiver();
    rx6.answer(() => ({ status: 429, headers: { "retry-after": "3600" } }));
    const { key, issuer } = await tenant();
    const sub = await subscribe(key, rx6.url, ["issuance.transaction.created"]);
    await issue(key, issuer);
    const w = worker();
    w.start();
    try {
      const [delivery] = await until("a throttled attempt", async () => {
        const list = await deliveries(key, `&subscriptionId=${sub.id}`);
        return list[0]?.attempts >= 1 && list;
      });
      expect(delivery).toMatchObject({ status: "pending", attempts: 1, lastResponseStatus: 429 });
      // The schedule says 150 ms; the receiver asked for an hour.
      expect(Date.parse(delivery.nextAttemptAt) - Date.now()).toBeGreaterThan(3_500_000);
    } finally {
      await w.stop();
      await rx6.close();
    }
  });

  it("keeps the connection to a receiver alive between deliveries", async () => {
    const rx5 = await receiver();
    const { key, issuer } = await tenant();
    await subscribe(key, rx5.url, ["issuance.transaction.created"]);
    try {
      for (let i = 0; i < 3; i++) {
        await issue(key, issuer);
        await worker().runOnce();
      }
      expect(rx5.received).toHaveLength(3);
      expect(new Set(rx5.received.map((r) => r.remotePort)).size).toBe(1);
      expect(rx5.received[0]!.headers.connection).toBe("keep-alive");
    } finally {
      await rx5.close();
    }
  });

  it("a kept-alive connection closed without an answer: sent again once on a new connection, one attempt recorded", async () => {
    const rx6 = await receiver();
    const { key, issuer } = await tenant();
    const sub = await subscribe(key, rx6.url, ["issuance.transaction.created"]);
    try {
      await issue(key, issuer);
      await worker().runOnce();
      // The next request arrives on the kept-alive connection, which the receiver closes unanswered.
      rx6.answer((n) => (n === 2 ? "drop" : 204));
      await issue(key, issuer);
      await worker().runOnce();
      expect(rx6.received).toHaveLength(3);
      expect(rx6.received[2]!.remotePort).not.toBe(rx6.received[1]!.remotePort);
      expect(rx6.received[2]!.body).toBe(rx6.received[1]!.body);
      const list = await deliveries(key, `&subscriptionId=${sub.id}`);
      expect(list.map((d) => [d.status, d.attempts])).toEqual([
        ["succeeded", 1],
        ["succeeded", 1],
      ]);

      // Closed unanswered on the new connection too: no third send, the attempt fails and is retried later.
      rx6.answer((n) => (n <= 4 ? 204 : "drop"));
      for (let i = 0; i < 2; i++) {
        await issue(key, issuer);
        await worker().runOnce();
      }
      expect(rx6.received).toHaveLength(6);
      expect(rx6.received[4]!.remotePort).toBe(rx6.received[3]!.remotePort);
      const [latest] = await deliveries(key, `&subscriptionId=${sub.id}&status=pending`);
      expect(latest).toMatchObject({ attempts: 1, lastResponseStatus: null });
      const [attempt] = await attemptsOf(latest.id);
      expect(attempt!.error).toMatch(/Connection reset/);
    } finally {
      await rx6.close();
    }
  });

  it("a subscription deleted or disabled after the fan-out, or its event gone: closed without an attempt, saying why", async () => {
    const rx7 = await receiver();
    const { key, issuer } = await tenant();
    const subs = [
      await subscribe(key, rx7.url, ["issuance.transaction.created"]),
      await subscribe(key, rx7.url, ["issuance.transaction.created"]),
      await subscribe(key, rx7.url, ["issuance.transaction.created"]),
    ];
    try {
      await issue(key, issuer);
      while ((await dispatchOutboxEvents(t.server.deps, { batchSize: 50 })) === 50) {}
      const byId = new Map(subs.map((s) => [s.id, s]));
      const list = (await deliveries(key)).filter((d) => byId.has(d.subscriptionId));
      expect(list).toHaveLength(3);
      const [deleted, disabled, eventGone] = subs;
      await prisma().webhookSubscription.update({
        where: { id: deleted!.id },
        data: { deletedAt: new Date() },
      });
      await prisma().webhookSubscription.update({
        where: { id: disabled!.id },
        data: { status: "disabled" },
      });
      const goneDelivery = list.find((d) => d.subscriptionId === eventGone!.id)!;
      await prisma().webhookDelivery.update({
        where: { id: goneDelivery.id },
        data: { eventId: "evt_01gone00000000000000000000" },
      });
      await worker().runOnce();
      expect(rx7.received).toHaveLength(0);
      const closed = await prisma().webhookDelivery.findMany({
        where: { id: { in: list.map((d) => d.id) } },
      });
      const why = new Map(closed.map((d) => [d.subscriptionId, [d.status, d.attempts, d.lastError]]));
      expect(why.get(deleted!.id)).toEqual(["failed", 0, "Not attempted: the subscription is deleted."]);
      expect(why.get(disabled!.id)).toEqual(["failed", 0, "Not attempted: the subscription is disabled."]);
      expect(why.get(eventGone!.id)).toEqual(["failed", 0, "The event no longer exists."]);
    } finally {
      await rx7.close();
    }
  });

  it("a worker killed mid-delivery: its lease runs out and another worker delivers", async () => {
    const rx3 = await receiver();
    rx3.answer((n) => (n === 1 ? "hang" : 200));
    const { key, issuer } = await tenant();
    const sub = await subscribe(key, rx3.url, ["issuance.transaction.created"]);
    const tx = await issue(key, issuer);
    const a = worker({ delivery: { leaseMs: 400, attemptTimeoutMs: 30_000 } });
    a.start();
    await until("the first request", async () => rx3.received.length === 1);
    await a.stop({ graceful: false }); // as if the process died: nothing recorded
    const [pending] = await deliveries(key, `&subscriptionId=${sub.id}`);
    expect(pending).toMatchObject({ status: "pending", attempts: 0 });

    const b = worker({ delivery: { leaseMs: 400 } });
    b.start();
    try {
      const done = await until("delivery by the second worker", async () => {
        const list = await deliveries(key, `&subscriptionId=${sub.id}`);
        return list[0]?.status === "succeeded" && list[0];
      });
      expect(done.attempts).toBe(1);
      expect(await attemptsOf(done.id)).toHaveLength(1);
      // At least once: the receiver saw the same event (same webhook-id) twice.
      expect(rx3.received).toHaveLength(2);
      expect(rx3.received[1]!.headers["webhook-id"]).toBe(rx3.received[0]!.headers["webhook-id"]);
      expect(verify(sub.secret, rx3.received[1]!).data.transactionId).toBe(tx.id);
    } finally {
      await b.stop();
      await rx3.close();
    }
  });

  it("a late answer after the lease ran out does not record a second attempt", async () => {
    const rx4 = await receiver();
    rx4.answer((n) => (n === 1 ? "hang" : 200));
    const { key, issuer } = await tenant();
    const sub = await subscribe(key, rx4.url, ["issuance.transaction.created"]);
    await issue(key, issuer);
    const slow = worker({ delivery: { leaseMs: 300, attemptTimeoutMs: 30_000 } });
    const slowRound = slow.runOnce();
    await until("the first request", async () => rx4.received.length === 1);
    await new Promise((r) => setTimeout(r, 350));
    await worker().runOnce(); // the lease is over: a second worker takes the delivery and succeeds
    rx4.release(200); // now the first worker's attempt completes too
    await slowRound;
    const [done] = await deliveries(key, `&subscriptionId=${sub.id}`);
    expect(done).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(await attemptsOf(done.id)).toHaveLength(1);
    await rx4.close();
  });

  it("two workers at once never make the same attempt twice", async () => {
    const rx5 = await receiver();
    const { key, issuer } = await tenant();
    const sub = await subscribe(key, rx5.url, ["issuance.transaction.created"]);
    const n = 16;
    for (let i = 0; i < n; i++) await issue(key, issuer);
    const w1 = worker({ concurrency: 4, delivery: { batchSize: 3 } });
    const w2 = worker({ concurrency: 4, delivery: { batchSize: 3 } });
    w1.start();
    w2.start();
    try {
      await until("all deliveries", async () => {
        const list = await deliveries(key, `&subscriptionId=${sub.id}`);
        return list.length === n && list.every((d) => d.status === "succeeded");
      });
      const ids = rx5.received.map((r) => r.headers["webhook-id"]);
      expect(ids).toHaveLength(n);
      expect(new Set(ids).size).toBe(n);
      const list = await deliveries(key, `&subscriptionId=${sub.id}`);
      const attempts = await prisma().webhookAttempt.findMany({
        where: { deliveryId: { in: list.map((d) => d.id) } },
      });
      expect(attempts).toHaveLength(n);
      expect(attempts.every((a) => a.attemptNumber === 1)).toBe(true);
    } finally {
      await Promise.all([w1.stop(), w2.stop()]);
      await rx5.close();
    }
  });

  it("at capacity, a worker takes the next delivery as soon as an attempt ends, not after the poll interval", async () => {
    const rx8 = await receiver();
    const { key, issuer } = await tenant();
    const sub = await subscribe(key, rx8.url, ["issuance.transaction.created"]);
    const n = 12;
    for (let i = 0; i < n; i++) await issue(key, issuer);
    // A poll interval far longer than the wait below: only attempts ending may start the next ones.
    const w = worker({ pollIntervalMs: 60_000, concurrency: 2, delivery: { batchSize: 2 } });
    w.start();
    try {
      await until(
        "all deliveries",
        async () => {
          const list = await deliveries(key, `&subscriptionId=${sub.id}`);
          return list.length === n && list.every((d) => d.status === "succeeded");
        },
        10_000,
      );
      expect(rx8.received).toHaveLength(n);
    } finally {
      await w.stop();
      await rx8.close();
    }
  });

  it("right after a delivery, the next event goes out without waiting for the poll interval", async () => {
    const rx9 = await receiver();
    const { key, issuer } = await tenant();
    await subscribe(key, rx9.url, ["issuance.transaction.created"]);
    await issue(key, issuer);
    const w = worker({ pollIntervalMs: 60_000 });
    w.start();
    try {
      await until("the first delivery", async () => rx9.received.length === 1);
      await issue(key, issuer);
      await until("the second delivery", async () => rx9.received.length === 2, 5_000);
    } finally {
      await w.stop();
      await rx9.close();
    }
  });

  it("410 Gone disables the subscription; later events are not delivered to it", async () => {
    const rx6 = await receiver();
    rx6.answer(() => 410);
    const { key, issuer } = await tenant();
    const sub = await subscribe(key, rx6.url, ["issuance.transaction.created"]);
    await issue(key, issuer);
    await worker().runOnce();
    const [failed] = await deliveries(key, `&subscriptionId=${sub.id}`);
    expect(failed).toMatchObject({
      status: "failed",
      attempts: 1,
      lastResponseStatus: 410,
      lastError: "The endpoint answered 410 Gone.",
      nextAttemptAt: null,
    });
    const got = await call(t, "GET", `/management/webhooks/${sub.id}`, { key });
    expect(got.body.data).toMatchObject({
      status: "disabled",
      disabledReason: "The endpoint answered 410 Gone.",
    });
    const row = await prisma().webhookSubscription.findUniqueOrThrow({ where: { id: sub.id } });
    expect(row.disabledReason).toMatch(/410/);
    await issue(key, issuer);
    await worker().runOnce();
    expect(await deliveries(key, `&subscriptionId=${sub.id}`)).toHaveLength(1);
    expect(rx6.received).toHaveLength(1);
    // A disabled subscription's delivery cannot be redelivered.
    const again = await call(t, "POST", `/management/webhook-deliveries/${failed.id}/redeliver`, { key });
    expect(again.status).toBe(409);
    expect(errorCode(again)).toBe("InvalidState");
    await rx6.close();
  });

  it("a delivery that fails for good disables a subscription whose endpoint has failed everything for 5 days", async () => {
    const rx8 = await receiver();
    rx8.answer(() => 500);
    const { key, issuer } = await tenant();
    const failing = await subscribe(key, rx8.url, ["issuance.transaction.created"]);
    const recovering = await subscribe(key, rx8.url, ["issuance.transaction.created"]);
    const sixDaysAgo = new Date(Date.now() - 6 * 24 * 3600_000);
    await prisma().webhookSubscription.updateMany({
      where: { id: { in: [failing.id, recovering.id] } },
      data: { createdAt: sixDaysAgo },
    });
    // One of them had a delivery succeed yesterday.
    await issue(key, issuer);
    const w = worker({ delivery: { retryScheduleMs: [50] } });
    await w.runOnce();
    const yesterday = new Date(Date.now() - 24 * 3600_000);
    await prisma().webhookDelivery.updateMany({
      where: { subscriptionId: recovering.id },
      data: { status: "succeeded", updatedAt: yesterday, nextAttemptAt: null },
    });
    await issue(key, issuer);
    await w.runOnce();
    await new Promise((r) => setTimeout(r, 80));
    await w.runOnce();
    await new Promise((r) => setTimeout(r, 80));
    await w.runOnce();
    const read = async (id: string) =>
      (await call(t, "GET", `/management/webhooks/${id}`, { key })).body.data;
    expect(await read(failing.id)).toMatchObject({
      status: "disabled",
      disabledReason: expect.stringMatching(/failed for 5 days/),
    });
    expect(await read(recovering.id)).toMatchObject({ status: "active", disabledReason: null });
    await rx8.close();
  });

  it("retries give up after the schedule; a manual redelivery makes one more attempt now", async () => {
    const rx7 = await receiver();
    rx7.answer(() => 500);
    const { key, issuer } = await tenant();
    const sub = await subscribe(key, rx7.url, ["issuance.transaction.created"]);
    await issue(key, issuer);
    const w = worker({ delivery: { retryScheduleMs: [50] } });
    await w.runOnce();
    await new Promise((r) => setTimeout(r, 80));
    await w.runOnce();
    const [failed] = await deliveries(key, `&subscriptionId=${sub.id}`);
    expect(failed).toMatchObject({
      status: "failed",
      attempts: 2,
      lastResponseStatus: 500,
      nextAttemptAt: null,
    });
    const attempts = await attemptsOf(failed.id);
    expect(attempts.map((a) => [a.attemptNumber, a.responseStatus])).toEqual([
      [1, 500],
      [2, 500],
    ]);
    expect(attempts[1]!.error).toBe("The endpoint answered 500.");

    // Scope, tenancy and existence.
    const readOnly = await call(t, "POST", `/management/webhook-deliveries/${failed.id}/redeliver`, {
      key: await t.key({ scopes: ["webhooks.read"] }),
    });
    expect(readOnly.status).toBe(403);
    const foreign = await call(t, "POST", `/management/webhook-deliveries/${failed.id}/redeliver`, {
      key: t.adminKey,
    });
    expect(foreign.status).toBe(404);
    const unknown = await call(t, "POST", "/management/webhook-deliveries/whd_nope/redeliver", { key });
    expect(unknown.status).toBe(404);
    expect((await call(t, "POST", `/management/webhook-deliveries/${failed.id}/redeliver`, {})).status).toBe(
      401,
    );

    rx7.answer(() => 200);
    const r = await call(t, "POST", `/management/webhook-deliveries/${failed.id}/redeliver`, { key });
    expect(r.status).toBe(202);
    expect(r.body.data).toMatchObject({ id: failed.id, status: "pending", attempts: 2 });
    await w.runOnce();
    const [done] = await deliveries(key, `&subscriptionId=${sub.id}`);
    expect(done).toMatchObject({ status: "succeeded", attempts: 3, lastResponseStatus: 200 });
    const ids = new Set(rx7.received.map((x) => x.headers["webhook-id"]));
    expect(ids.size).toBe(1); // the same event id on every attempt
    await rx7.close();
  });

  it("re-checks the address at delivery time and connects only to the addresses it checked", async () => {
    const { key, tenantId, issuer } = await tenant();
    const secretBox = t.server.deps.secretBox;
    // Subscriptions whose names resolved to public addresses when they were created (rows written directly).
    const insert = async (id: string, url: string) => {
      await prisma().webhookSubscription.create({
        data: {
          id,
          tenantId,
          environment: "sandbox",
          url,
          events: ["issuance.transaction.created"],
          status: "active",
          secretCipher: secretBox.seal("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", id),
          createdAt: new Date(Date.now() - 1000),
        },
      });
    };
    const rx8 = await receiver();
    await insert("wh_01rebind0000000000000000a", "https://hooks.rebind.example/x");
    await insert("wh_01pinned0000000000000000b", `http://pinned.localhost:${rx8.port}/hooks`);
    await issue(key, issuer);
    const lookups: string[] = [];
    await worker({
      delivery: {
        lookup: async (host) => {
          lookups.push(host);
          // DNS now answers with a private address for the first, loopback for the second.
          return [{ address: host === "hooks.rebind.example" ? "10.0.0.7" : "127.0.0.1", family: 4 }];
        },
      },
    }).runOnce();
    expect(lookups.sort()).toEqual(["hooks.rebind.example", "pinned.localhost"]);

    const [refused] = await deliveries(key, "&subscriptionId=wh_01rebind0000000000000000a");
    expect(refused).toMatchObject({ status: "pending", attempts: 1, lastResponseStatus: null });
    const [attempt] = await attemptsOf(refused.id);
    expect(attempt!.error).toMatch(/^Refused before connecting: .*private network address/);

    const [pinned] = await deliveries(key, "&subscriptionId=wh_01pinned0000000000000000b");
    expect(pinned).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(rx8.received).toHaveLength(1);
    expect(rx8.received[0]!.headers.host).toBe(`pinned.localhost:${rx8.port}`);
    await rx8.close();
  });

  it("rotations at the same moment all count: every secret they returned signs the next delivery", async () => {
    const rx10 = await receiver();
    const { key, issuer } = await tenant();
    const sub = await subscribe(key, rx10.url, ["issuance.transaction.created"]);
    const rotations = await Promise.all(
      Array.from({ length: 4 }, () =>
        call(t, "POST", `/management/webhooks/${sub.id}/rotate-secret`, {
          key,
          body: { overlapSeconds: 3600 },
        }),
      ),
    );
    expect(rotations.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    await issue(key, issuer);
    await worker().runOnce();
    const delivered = rx10.received.at(-1)!;
    expect(delivered.headers["webhook-signature"]!.split(" ")).toHaveLength(5);
    for (const secret of [sub.secret, ...rotations.map((r) => r.body.data.secret as string)])
      expect(verify(secret, delivered).type).toBe("issuance.transaction.created");
    await rx10.close();
  });

  it("rotating the secret signs with every secret still in its overlap, then with the new one only", async () => {
    const rx9 = await receiver();
    const { key, issuer } = await tenant();
    const sub = await subscribe(key, rx9.url, ["issuance.transaction.created"]);
    const rotated = await call(t, "POST", `/management/webhooks/${sub.id}/rotate-secret`, {
      key,
      body: { overlapSeconds: 3600 },
    });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    const fresh = rotated.body.data.secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(sub.secret);
    await issue(key, issuer);
    await worker().runOnce();
    const during = rx9.received.at(-1)!;
    expect(during.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(verify(sub.secret, during).type).toBe("issuance.transaction.created");
    expect(verify(fresh, during).type).toBe("issuance.transaction.created");

    // A second rotation during the first's overlap: the original secret keeps its own overlap.
    const again = await call(t, "POST", `/management/webhooks/${sub.id}/rotate-secret`, {
      key,
      body: { overlapSeconds: 600 },
    });
    expect(again.status).toBe(200);
    const third = again.body.data.secret as string;
    await issue(key, issuer);
    await worker().runOnce();
    const both = rx9.received.at(-1)!;
    expect(both.headers["webhook-signature"]!.split(" ")).toHaveLength(3);
    for (const secret of [third, fresh, sub.secret])
      expect(verify(secret, both).type).toBe("issuance.transaction.created");

    const typo = await call(t, "POST", `/management/webhooks/${sub.id}/rotate-secret`, {
      key,
      body: { overlapSecond: 0 },
    });
    expect(typo.status).toBe(400);
    expect(typo.body.error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: "UnknownField" })]),
    );

    const ended = await call(t, "POST", `/management/webhooks/${sub.id}/rotate-secret`, {
      key,
      body: { overlapSeconds: 0 },
    });
    const newest = ended.body.data.secret as string;
    await issue(key, issuer);
    await worker().runOnce();
    const after = rx9.received.at(-1)!;
    expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(verify(newest, after).type).toBe("issuance.transaction.created");
    for (const secret of [third, fresh, sub.secret]) expect(() => verify(secret, after)).toThrow();
    expect(
      (await call(t, "POST", `/management/webhooks/${sub.id}/rotate-secret`, { key: t.adminKey, body: {} }))
        .status,
    ).toBe(404);
    await rx9.close();
  });
});
