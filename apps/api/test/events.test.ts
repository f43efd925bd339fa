import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { webhookBodySchema } from "@cred/contracts/webhook-event-catalogue";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "@cred/contracts/webhook-events";
import { dispatchOutboxEvents, SCOPES, sweepExpired } from "@cred/core";
import { presentWithTestWallet } from "@cred/oid4vc";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEnv, webhookSettings } from "../src/env";
import { createWebhookWorker, type WebhookWorkerOptions } from "../src/worker";
import { type ActiveIssuer, activeIssuer, VALID_CLAIMS } from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { holderKey, nonce, proof, redeemOffer, requestCredential } from "./wallet-client";

let t: TestServer;
const silent = { info() {}, warn() {}, error() {} };

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

// ---------------------------------------------------------------------------------------------------
// A receiver on loopback

interface Received {
  headers: Record<string, string>;
  body: string;
  /** The client's port: requests on one kept-alive connection share it. */
  remotePort: number;
}

/** A status (with headers), no answer until released, or the connection closed without an answer. */
type Answer = number | { status: number; headers: Record<string, string> } | "hang" | "drop";

async function receiver() {
  const received: Received[] = [];
  let answer: (n: number) => Answer = () => 204;
  const hanging = new Set<http.ServerResponse>();
  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      const remotePort = req.socket.remotePort ?? 0;
      received.push({ headers, body: Buffer.concat(chunks).toString("utf8"), remotePort });
      const a = answer(received.length);
      if (a === "drop") {
        req.socket.destroy();
        return;
      }
      if (a === "hang") {
        hanging.add(res);
        return;
      }
      if (typeof a === "object") res.writeHead(a.status, a.headers);
      else res.statusCode = a;
      res.end("ok");
    });
  };
  let server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    answer(fn: (n: number) => Answer) {
      answer = fn;
    },
    release(status = 200) {
      for (const res of hanging) res.writeHead(status).end();
      hanging.clear();
    },
    async down() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
    async up() {
      server = http.createServer(handler);
      await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

type Receiver = Awaited<ReturnType<typeof receiver>>;

/** Verifies a delivery with the standardwebhooks library and returns the parsed body. */
function verify(secret: string, r: Received) {
  return new Webhook(secret).verify(r.body, r.headers) as { type: string; timestamp: string; data: any };
}

// ---------------------------------------------------------------------------------------------------
// Helpers

const FAST: Partial<Omit<WebhookWorkerOptions, "delivery">> & {
  delivery: Partial<WebhookWorkerOptions["delivery"]>;
} = {
  pollIntervalMs: 20,
  sweepIntervalMs: 0,
  delivery: {
    retryScheduleMs: [150, 150, 150, 150, 150, 150],
    jitter: 0,
    attemptTimeoutMs: 3000,
    leaseMs: 4000,
  },
};

function worker(overrides: Partial<typeof FAST> = {}) {
  return createWebhookWorker(t.server.deps, silent, {
    ...FAST,
    ...overrides,
    delivery: { ...FAST.delivery, ...overrides.delivery },
  });
}

/** A fresh tenant with an active issuer, so each test sees only its own events. */
async function tenant() {
  const other = await t.otherTenant();
  const issuer = await activeIssuer(t, other.key);
  return { ...other, issuer };
}

async function subscribe(key: string, url: string, events: string[] = ["*"]) {
  const r = await call(t, "POST", "/management/webhooks", { key, body: { url, events } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as { id: string; secret: string };
}

async function issue(key: string, issuer: ActiveIssuer, extra: Record<string, unknown> = {}) {
  const r = await call(t, "POST", "/v1.0/issuance-transactions", {
    key,
    body: {
      issuerId: issuer.issuerId,
      credentialConfiguration: issuer.configuration,
      claims: VALID_CLAIMS,
      ...extra,
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as { id: string; credentialOffer: string };
}

async function deliveries(key: string, query = "") {
  const r = await call(t, "GET", `/management/webhook-deliveries?limit=100${query}`, { key });
  expect(r.status).toBe(200);
  return r.body.data as any[];
}

async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const prisma = () => t.server.database.prisma;
const attemptsOf = (deliveryId: string) =>
  prisma().webhookAttempt.findMany({ where: { deliveryId }, orderBy: { attemptNumber: "asc" } });

// ---------------------------------------------------------------------------------------------------

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

describe("the catalogue", () => {
  it("every event type is emitted by the operation that owns it and delivered in its documented shape", async () => {
    const rx = await receiver();
    const { key } = await t.otherTenant();
    const sub = await subscribe(key, rx.url);
    // credential_configuration.created, issuer.activated
    const issuer = await activeIssuer(t, key);
    // issuance.transaction.created, .completed
    const completed = await issue(key, issuer);
    const flow = await redeemOffer(completed.credentialOffer);
    const credential = flow.credentialRes.body.credentials[0].credential as string;
    const read = await call(t, "GET", `/v1.0/issuance-transactions/${completed.id}`, { key });
    const credentialId = read.body.data.credentialId as string;
    // issuance.transaction.reissued: the wallet asks again with the same access token (OpenID4VCI §14.3)
    const again = await requestCredential(flow.metadata.credential_endpoint, flow.accessToken, {
      credential_configuration_id: issuer.configuration,
      proofs: {
        jwt: [
          await proof(await holderKey(), issuer.credentialIssuer, await nonce(flow.metadata.nonce_endpoint)),
        ],
      },
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    // credential.accepted|failed|deleted: the wallet's OpenID4VCI notifications
    for (const event of ["credential_accepted", "credential_failure", "credential_deleted"]) {
      const res = await fetch(`${issuer.credentialIssuer}/notification`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${flow.accessToken}` },
        body: JSON.stringify({ notification_id: flow.credentialRes.body.notification_id, event }),
      });
      expect(res.status).toBe(204);
    }
    // issuance.transaction.cancelled
    const cancelled = await issue(key, issuer);
    expect(
      (await call(t, "POST", `/v1.0/issuance-transactions/${cancelled.id}/cancel`, { key })).status,
    ).toBe(200);
    // issuance.transaction.deferred: the wallet asks before the claims of a deferred transaction came
    const deferred = await call(t, "POST", "/v1.0/issuance-transactions", {
      key,
      body: {
        credentialConfiguration: issuer.configuration,
        issuerId: issuer.issuerId,
        delivery: { deferred: true },
      },
    });
    expect(deferred.status).toBe(201);
    expect((await redeemOffer(deferred.body.data.credentialOffer)).credentialRes.status).toBe(202);
    // credential_configuration.version_activated
    const claims = (
      await call(t, "GET", `/management/credential-configurations/${issuer.configuration}`, { key })
    ).body.data.claims;
    expect(
      (
        await call(t, "POST", `/management/credential-configurations/${issuer.configuration}/versions`, {
          key,
          body: { claims },
        })
      ).status,
    ).toBe(201);
    // verification_policy.suspended, .reactivated
    const policy = {
      identifier: "badge-check",
      displayName: "Badge check",
      purpose: "Staff entrance",
      credentials: [
        {
          id: "badge",
          credentialTypes: [issuer.credentialType],
          trustedIssuers: [{ issuerId: issuer.issuerId }],
          requiredClaims: [["given_name"]],
          holderBindingRequired: true,
          checkStatus: true,
        },
      ],
      responseMode: "direct_post",
    };
    const created = await call(t, "POST", "/management/verification-policies", { key, body: policy });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(
      (await call(t, "POST", "/management/verification-policies/badge-check/suspend", { key })).status,
    ).toBe(200);
    expect(
      (await call(t, "POST", "/management/verification-policies/badge-check/reactivate", { key })).status,
    ).toBe(200);
    // verification.session.created, .verified
    const start = async () => {
      const r = await call(t, "POST", "/v1.0/verifications", { key, body: { policy: "badge-check" } });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.data as { id: string; authorizationRequestUri: string };
    };
    const present = async (session: { id: string; authorizationRequestUri: string }) => {
      await presentWithTestWallet({
        authorizationRequestUri: session.authorizationRequestUri,
        fetch: (input, init) => fetch(input, init),
        holderPrivateKey: flow.keys[0]!.privateJwk,
        credential,
      });
      const r = await call(t, "GET", `/v1.0/verification-sessions/${session.id}`, { key });
      return r.body.data.status as string;
    };
    expect(await present(await start())).toBe("verified");
    // credential.revoked, then verification.session.rejected (a revoked credential)
    expect((await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key })).status).toBe(200);
    expect(await present(await start())).toBe("rejected");
    // verification.session.cancelled
    const toCancel = await start();
    expect((await call(t, "POST", `/v1.0/verification-sessions/${toCancel.id}/cancel`, { key })).status).toBe(
      200,
    );
    // issuance.transaction.expired, verification.session.expired (the sweeper, nobody read them)
    const expiring = await issue(key, issuer);
    const unanswered = await start();
    await sweepExpired(t.server.deps, { now: new Date(Date.now() + 2 * 86_400_000) });
    expect(
      (await call(t, "GET", `/v1.0/verification-sessions/${unanswered.id}`, { key })).body.data.status,
    ).toBe("expired");
    expect(
      (await call(t, "GET", `/v1.0/issuance-transactions/${expiring.id}`, { key })).body.data.status,
    ).toBe("expired");

    const w = worker();
    await until("every delivery made", async () => {
      await w.runOnce();
      const list = await deliveries(key, `&subscriptionId=${sub.id}`);
      return list.every((d) => d.status === "succeeded");
    });
    const bodies = rx.received.map((r) => verify(sub.secret, r));
    const types = new Set(bodies.map((b) => b.type));
    expect([...types].sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const body of bodies) {
      const schema = webhookBodySchema(body.type as WebhookEventType);
      schema.parse(body);
      // Exactly the documented fields: nothing undocumented (such as claims) rides along.
      expect(Object.keys(body.data).sort()).toEqual(Object.keys(schema.shape.data.shape).sort());
    }
    // The read after the sweep did not emit a second expiry event.
    expect(bodies.filter((b) => b.type === "verification.session.expired")).toHaveLength(1);
    for (const r of rx.received)
      for (const v of ["Erika", "Mustermann", "1984-01-26"]) expect(r.body).not.toContain(v);
    await rx.close();
  });

  it("is in the OpenAPI document: a schema per event and an OpenAPI 3.1 webhooks section", async () => {
    const r = await call(t, "GET", "/openapi.json");
    expect(r.status).toBe(200);
    const doc = r.body;
    for (const type of WEBHOOK_EVENT_TYPES) {
      const hook = doc.webhooks[type].post;
      const ref = hook.requestBody.content["application/json"].schema.$ref as string;
      const schema = doc.components.schemas[ref.replace("#/components/schemas/", "")];
      expect(schema.properties.type.const).toBe(type);
      expect(schema.properties.data.type).toBe("object");
      expect(hook.parameters.map((p: { name: string }) => p.name)).toEqual([
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
      ]);
    }
    expect(doc.paths["/management/webhook-deliveries/{deliveryId}/redeliver"].post.operationId).toBe(
      "WebhookDeliveries_Redeliver",
    );
  });
});

describe("the in-process worker", () => {
  it("createServer starts it when runWorker is set and stops it on close", async () => {
    const s = await startTestServer({ runWorker: true, workerOptions: FAST });
    const rx = await receiver();
    try {
      expect(s.server.worker?.running).toBe(true);
      const sub = await (async () => {
        const r = await call(s, "POST", "/management/webhooks", {
          key: s.adminKey,
          body: { url: rx.url, events: ["issuer.activated"] },
        });
        return r.body.data as { id: string; secret: string };
      })();
      await activeIssuer(s, s.adminKey);
      await until("delivery by the in-process worker", async () => rx.received.length === 1);
      expect(verify(sub.secret, rx.received[0]!).type).toBe("issuer.activated");
    } finally {
      await s.close();
      await rx.close();
    }
    expect(s.server.worker?.running).toBe(false);
  });

  it("delivers an event written in its process at once, not at the end of its poll interval", async () => {
    const s = await startTestServer({ runWorker: true, workerOptions: { ...FAST, pollIntervalMs: 60_000 } });
    const rx = await receiver();
    try {
      await call(s, "POST", "/management/webhooks", {
        key: s.adminKey,
        body: { url: rx.url, events: ["issuer.activated"] },
      });
      await new Promise((r) => setTimeout(r, 300)); // the worker is idle, in its minute-long sleep
      const written = Date.now();
      await activeIssuer(s, s.adminKey);
      await until("delivery well within the poll interval", async () => rx.received.length === 1, 5_000);
      expect(Date.now() - written).toBeLessThan(5_000);
    } finally {
      await s.close();
      await rx.close();
    }
  });

  it("takes the operator's settings from the environment, as main.ts passes them", async () => {
    const settings = webhookSettings(
      readEnv({
        WEBHOOK_POLL_INTERVAL_MS: "20",
        WEBHOOK_MAX_ATTEMPTS: "1",
        WEBHOOK_TIMEOUT_MS: "2000",
        WEBHOOK_DELIVERY_RETENTION_DAYS: "7",
      }),
    );
    const s = await startTestServer({ runWorker: true, ...settings });
    const rx = await receiver();
    rx.answer(() => 500);
    try {
      expect(s.server.deps.config.webhookDeliveryRetentionDays).toBe(7);
      await call(s, "POST", "/management/webhooks", {
        key: s.adminKey,
        body: { url: rx.url, events: ["issuer.activated"] },
      });
      await activeIssuer(s, s.adminKey);
      // One attempt in all: the 500 fails the delivery at once instead of scheduling a retry.
      const [failed] = await until("the delivery failed", async () => {
        const r = await call(s, "GET", "/management/webhook-deliveries", { key: s.adminKey });
        const list = r.body.data as any[];
        return list[0]?.status === "failed" && list;
      });
      expect(failed).toMatchObject({ attempts: 1, lastResponseStatus: 500, nextAttemptAt: null });
      expect(rx.received).toHaveLength(1);
    } finally {
      await s.close();
      await rx.close();
    }
  });

  it("is off by default", () => {
    expect(t.server.worker).toBeUndefined();
    expect(SCOPES).toContain("webhooks.manage");
  });
});

describe("pnpm worker (a separate process, PostgreSQL only)", () => {
  const apiDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const startWorkerProcess = (databaseUrl: string, masterKey: Buffer, env: Record<string, string> = {}) =>
    // What `pnpm worker` runs, without wrappers in between, so signals reach the worker itself.
    spawn(process.execPath, ["--import", "tsx", "src/worker-main.ts"], {
      cwd: apiDir,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        MASTER_KEY: masterKey.toString("base64"),
        DEVELOPMENT_MODE: "true",
        WEBHOOK_ALLOWED_HOSTS: "127.0.0.1,localhost",
        LOG_LEVEL: "silent",
        ...env,
      },
      stdio: "ignore",
    });
  const databaseUrlOf = (s: TestServer) =>
    (s.server.database.pool as unknown as { options: { connectionString: string } }).options.connectionString;

  it.skipIf(!process.env.TEST_POSTGRES_URL)(
    "hears of an event written by an API process at once (LISTEN/NOTIFY), not at its next poll",
    async () => {
      const masterKey = randomBytes(32);
      const s = await startTestServer({ masterKey });
      const rx = await receiver();
      const child = startWorkerProcess(databaseUrlOf(s), masterKey, { WEBHOOK_POLL_INTERVAL_MS: "60000" });
      try {
        await call(s, "POST", "/management/webhooks", {
          key: s.adminKey,
          body: { url: rx.url, events: ["issuer.activated"] },
        });
        // Started and idle: its first round found nothing, and it now sleeps for a minute.
        await new Promise((r) => setTimeout(r, 4_000));
        await activeIssuer(s, s.adminKey);
        await until("delivery by the idle worker process", async () => rx.received.length === 1, 5_000);
      } finally {
        child.kill("SIGKILL");
        await rx.close();
        await s.close();
      }
    },
    60_000,
  );
  const exited = (child: ChildProcess) =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
      else child.once("exit", (code) => resolve(code));
    });

  it.skipIf(!process.env.TEST_POSTGRES_URL)(
    "killed mid-delivery (SIGKILL): after a restart the delivery is made; SIGTERM stops gracefully",
    async () => {
      const masterKey = randomBytes(32);
      const s = await startTestServer({ masterKey });
      const rx = await receiver();
      rx.answer((n) => (n === 1 ? "hang" : 200));
      const databaseUrl = databaseUrlOf(s);
      let first: ChildProcess | undefined;
      let second: ChildProcess | undefined;
      try {
        const r = await call(s, "POST", "/management/webhooks", {
          key: s.adminKey,
          body: { url: rx.url, events: ["issuer.activated"] },
        });
        const sub = r.body.data as { id: string; secret: string };
        await activeIssuer(s, s.adminKey);

        first = startWorkerProcess(databaseUrl, masterKey);
        await until("the first worker's request", async () => rx.received.length === 1, 30_000);
        first.kill("SIGKILL");
        await exited(first);
        const db = s.server.database.prisma;
        const delivery = await db.webhookDelivery.findFirstOrThrow({ where: { subscriptionId: sub.id } });
        expect(delivery).toMatchObject({ status: "pending", attempts: 0 });
        expect(delivery.lockedUntil).not.toBeNull();
        // Let the dead worker's lease run out (a minute by default).
        await db.webhookDelivery.update({
          where: { id: delivery.id },
          data: { lockedUntil: new Date(Date.now() - 1) },
        });

        second = startWorkerProcess(databaseUrl, masterKey);
        const done = await until(
          "delivery by the restarted worker",
          async () => {
            const row = await db.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } });
            return row.status === "succeeded" && row;
          },
          30_000,
        );
        expect(done.attempts).toBe(1);
        expect(await db.webhookAttempt.count({ where: { deliveryId: delivery.id } })).toBe(1);
        expect(rx.received).toHaveLength(2);
        expect(verify(sub.secret, rx.received[1]!).type).toBe("issuer.activated");
        second.kill("SIGTERM");
        expect(await exited(second)).toBe(0);
      } finally {
        first?.kill("SIGKILL");
        second?.kill("SIGKILL");
        await rx.close();
        await s.close();
      }
    },
    60_000,
  );
});
