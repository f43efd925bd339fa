import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  createProofJwt,
  decodeStatusList,
  type Es256KeyPair,
  generateEs256KeyPair,
  getStatus,
  presentWithTestWallet,
  type StatusListBits,
} from "@cred/oid4vc";
import { decodeJwt } from "jose";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAIMS, type OursTarget, setupOurs } from "../../../bench/ours";
import { missingTopologyBinaries, startTopology, type Topology } from "../../../bench/topology";

const PRE_AUTH = "urn:ietf:params:oauth:grant-type:pre-authorized_code";
const missing = missingTopologyBinaries();
const skipReason = !process.env.TEST_POSTGRES_URL
  ? "TEST_POSTGRES_URL is not set"
  : missing.length
    ? `${missing.join(" and ")} not installed (apt-get install haproxy pgbouncer)`
    : undefined;
if (skipReason && process.env.TEST_POSTGRES_URL) console.warn(`topology.test.ts skipped: ${skipReason}`);

interface Answer {
  status: number;
  body: any;
  /** The API process haproxy sent the request to (its X-Served-By header). */
  servedBy: string | undefined;
}

/** One HTTP call; a connection that fails or breaks answers status 0 (the outcome is unknown). */
async function send(
  method: string,
  url: string,
  options: { headers?: Record<string, string>; json?: unknown; form?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.json);
  } else if (options.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(options.form).toString();
  }
  try {
    const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(15_000) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, body: parsed, servedBy: res.headers.get("x-served-by") ?? undefined };
  } catch {
    return { status: 0, body: undefined, servedBy: undefined };
  }
}

/** Answers whose request may be sent again: the process died (502/503 from the balancer, or a broken connection). */
const unknownOutcome = (a: Answer) => a.status === 0 || a.status === 502 || a.status === 503;

/** Sends again while the outcome is unknown (a request with an Idempotency-Key, or a read). */
async function retried(call: () => Promise<Answer>, attempts = 8): Promise<Answer> {
  let answer = await call();
  for (let i = 1; i < attempts && unknownOutcome(answer); i++) {
    await new Promise((r) => setTimeout(r, 250));
    answer = await call();
  }
  return answer;
}

/** What a flow got: only what was answered 2xx must be found afterwards. */
interface FlowRecord {
  reference: string;
  transactionId?: string;
  /** The credential request was answered 200 (its id found afterwards). */
  credential?: string;
  credentialId?: string;
  statusIdx?: number;
  revoked?: boolean;
  verifiedSession?: string;
  /** API processes that served this flow's wallet steps. */
  walletServedBy: Set<string>;
  failure?: string;
}

describe.skipIf(skipReason)(
  `scale-out topology: 2 API processes and a worker behind HAProxy, PostgreSQL behind PgBouncer${skipReason ? ` [${skipReason}]` : ""}`,
  () => {
    let topology: Topology;
    let target: OursTarget;
    let db: pg.Client;
    let receiver: http.Server;
    let subscriptionId: string;
    /** Event id → its body, as the receiver got them (at least once each). */
    const received = new Map<string, { type: string; data: Record<string, unknown> }>();
    let deliveries = 0;
    const auth = () => ({ authorization: `ApiKey ${topology.apiKey}` });

    beforeAll(async () => {
      receiver = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          deliveries++;
          received.set(String(req.headers["webhook-id"]), JSON.parse(Buffer.concat(chunks).toString("utf8")));
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
      // The worker polls only once a minute: an event reaches it at once only through LISTEN/NOTIFY.
      topology = await startTopology({
        apiProcesses: 2,
        workers: 1,
        // SIGTERM drains for 2 s: the balancer (checks every 300 ms, down after 2 failures) stops first.
        env: { WEBHOOK_POLL_INTERVAL_MS: "60000", SHUTDOWN_DRAIN_SECONDS: "2" },
      });
      db = new pg.Client({ connectionString: topology.directUrl });
      await db.connect();
      target = await setupOurs(topology.baseUrl, topology.apiKey);
    }, 120_000);

    afterAll(async () => {
      await db?.end();
      await topology?.stop();
      await new Promise((r) => receiver?.close(r));
    });

    it("a webhook event reaches the separate worker at once (LISTEN on the direct connection, not through the pooler)", async () => {
      // The worker has been idle since its first poll; nothing was subscribed to before now.
      await new Promise((r) => setTimeout(r, 1_500));
      const { port } = receiver.address() as AddressInfo;
      const created = await send("POST", `${topology.baseUrl}/management/webhooks?api-version=2026-08-30`, {
        headers: auth(),
        json: { url: `http://127.0.0.1:${port}/hook`, events: ["*"] },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      subscriptionId = created.body.data.id;
      await new Promise((r) => setTimeout(r, 1_500));
      const tx = await send("POST", `${topology.baseUrl}/v1.0/issuance-transactions`, {
        headers: auth(),
        json: { credentialConfiguration: target.configuration, issuerId: target.issuerId, claims: CLAIMS },
      });
      expect(tx.status).toBe(201);
      const deadline = Date.now() + 5_000;
      const delivered = () =>
        [...received.values()].some(
          (e) => e.type === "issuance.transaction.created" && e.data.transactionId === tx.body.data.id,
        );
      while (!delivered() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(delivered(), "delivered within 5 s, not at the worker's next poll a minute later").toBe(true);
    }, 30_000);

    it("issuance, verification and revocation through the balancer survive an API process killed mid-run: nothing answered 2xx is lost, nothing is issued twice, every event is delivered, status lists agree", async () => {
      expect(subscriptionId, "the webhook subscription of the first test").toBeDefined();
      const flows: FlowRecord[] = [];
      const keys: Es256KeyPair[] = await Promise.all(Array.from({ length: 8 }, () => generateEs256KeyPair()));
      let stop = false;

      async function flow(key: Es256KeyPair): Promise<void> {
        const record: FlowRecord = { reference: `topology-${randomUUID()}`, walletServedBy: new Set() };
        flows.push(record);
        const wallet = (a: Answer) => {
          if (a.servedBy) record.walletServedBy.add(a.servedBy);
          return a;
        };
        const fail = (step: string, a: Answer) => {
          record.failure = `${step}: ${a.status}`;
        };
        // Idempotency-Key: a create whose answer was lost is sent again and answered with the same transaction.
        const idempotencyKey = randomUUID();
        const created = await retried(() =>
          send("POST", `${topology.baseUrl}/v1.0/issuance-transactions`, {
            headers: { ...auth(), "idempotency-key": idempotencyKey },
            json: {
              credentialConfiguration: target.configuration,
              issuerId: target.issuerId,
              claims: CLAIMS,
              externalSubjectReference: record.reference,
            },
          }),
        );
        if (created.status !== 201) return fail("create", created);
        record.transactionId = created.body.data.id;
        const offerUri = new URL(created.body.data.credentialOffer).searchParams.get("credential_offer_uri")!;
        const offer = wallet(await retried(() => send("GET", offerUri)));
        if (offer.status !== 200) return fail("offer", offer);
        // The code is spent by a token request that committed: one whose answer was lost is not repeated.
        const token = wallet(
          await send("POST", target.tokenEndpoint, {
            form: {
              grant_type: PRE_AUTH,
              "pre-authorized_code": offer.body.grants[PRE_AUTH]["pre-authorized_code"],
            },
          }),
        );
        if (token.status !== 200) return fail("token", token);
        const nonce = wallet(await retried(() => send("POST", target.nonceEndpoint)));
        if (nonce.status !== 200) return fail("nonce", nonce);
        const proof = await createProofJwt({
          privateKey: key.privateKey,
          publicJwk: key.publicJwk,
          audience: target.credentialIssuer,
          nonce: nonce.body.c_nonce,
          iat: Math.floor(Date.now() / 1000),
        });
        // Not repeated either: a second request with the token is a further credential (OpenID4VCI §14.3).
        const credential = wallet(
          await send("POST", target.credentialEndpoint, {
            headers: { authorization: `Bearer ${token.body.access_token}` },
            json: { credential_configuration_id: target.configuration, proofs: { jwt: [proof] } },
          }),
        );
        if (credential.status !== 200) return fail("credential", credential);
        record.credential = credential.body.credentials[0].credential;
        const status = (decodeJwt(record.credential!.split("~")[0]!) as { status?: any }).status;
        record.statusIdx = status?.status_list?.idx;

        const read = await retried(() =>
          send("GET", `${topology.baseUrl}/v1.0/issuance-transactions/${record.transactionId}`, {
            headers: auth(),
          }),
        );
        if (read.status !== 200) return fail("read transaction", read);
        record.credentialId = read.body.data.credentialId;

        const verificationKey = randomUUID();
        const session = await retried(() =>
          send("POST", `${topology.baseUrl}/v1.0/verifications`, {
            headers: { ...auth(), "idempotency-key": verificationKey },
            json: { policy: target.verificationPolicy },
          }),
        );
        if (session.status !== 201) return fail("verification create", session);
        const presented = await presentWithTestWallet({
          authorizationRequestUri: session.body.data.authorizationRequestUri,
          fetch: async (input, init) => {
            const res = await fetch(input, init);
            const by = res.headers.get("x-served-by");
            if (by) record.walletServedBy.add(by);
            return res;
          },
          holderPrivateKey: key.privateJwk,
          credential: record.credential!,
          enc: "A128GCM",
        }).catch(() => ({ status: 0 }));
        if (presented.status !== 200) return fail("direct_post", { status: presented.status } as Answer);
        const verified = await retried(() =>
          send("GET", `${topology.baseUrl}/v1.0/verifications/${session.body.data.id}`, { headers: auth() }),
        );
        if (verified.status !== 200 || verified.body.data.status !== "verified")
          return fail("verification result", verified);
        record.verifiedSession = session.body.data.id;

        // Every other credential is revoked (revoking twice changes nothing, so it is sent again freely).
        if (flows.indexOf(record) % 2 === 0) {
          const revoked = await retried(() =>
            send("POST", `${topology.baseUrl}/v1.0/credentials/${record.credentialId}/revoke`, {
              headers: auth(),
            }),
          );
          if (revoked.status !== 200) return fail("revoke", revoked);
          record.revoked = true;
        }
      }

      const loops = keys.slice(0, 4).map(async (_, i) => {
        for (let n = 0; !stop; n++) await flow(keys[(i + n * 4) % keys.length]!);
      });
      const completed = () => flows.filter((f) => f.verifiedSession).length;
      const waitFor = async (n: number) => {
        const deadline = Date.now() + 30_000;
        while (completed() < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      };
      try {
        await waitFor(8);
        // Mid-run: api2 dies without warning, requests in flight on it included.
        await topology.stopApi(1, "SIGKILL");
        const atKill = completed();
        await topology.waitForStatus("api2", "DOWN", 10_000);
        await waitFor(atKill + 8);
        // A replacement starts; the balancer sends it requests only once /readyz answers.
        await topology.startApi(1);
        await waitFor(completed() + 8);
      } finally {
        stop = true;
        await Promise.all(loops);
      }

      const failures = flows.filter((f) => f.failure).map((f) => f.failure);
      const done = flows.filter((f) => f.verifiedSession);
      console.log(
        `topology: ${flows.length} flows, ${done.length} completed, ${done.filter((f) => f.walletServedBy.size > 1).length} with wallet steps on both processes; failed: ${failures.join(", ") || "none"}`,
      );
      expect(done.length, `flows completed; failures: ${failures.join(", ")}`).toBeGreaterThanOrEqual(20);
      // Only the requests in flight on the killed process may have failed.
      expect(failures.length, failures.join(", ")).toBeLessThanOrEqual(8);
      expect(
        done.some((f) => f.walletServedBy.size > 1),
        "a wallet's steps landed on different processes",
      ).toBe(true);

      // Nothing answered 2xx is lost, and each transaction was made once (Idempotency-Key retries included).
      const references = flows.map((f) => f.reference);
      const { rows: perReference } = await db.query<{ ref: string; n: number }>(
        `SELECT "externalSubjectReference" AS ref, count(*)::int AS n FROM "IssuanceTransaction"
          WHERE "externalSubjectReference" = ANY($1) GROUP BY 1`,
        [references],
      );
      expect(perReference.filter((r) => r.n > 1)).toEqual([]);
      const stored = new Set(perReference.map((r) => r.ref));
      for (const f of flows.filter((f) => f.transactionId)) expect(stored.has(f.reference)).toBe(true);
      // No duplicate issuance: at most one credential per transaction, and the one a wallet got is it.
      const { rows: perTransaction } = await db.query<{ tx: string; n: number }>(
        `SELECT "transactionId" AS tx, count(*)::int AS n FROM "Credential" WHERE "transactionId" = ANY($1) GROUP BY 1`,
        [flows.flatMap((f) => f.transactionId ?? [])],
      );
      expect(perTransaction.filter((r) => r.n > 1)).toEqual([]);
      const issued = flows.filter((f) => f.credential);
      for (const f of issued) {
        const tx = await send("GET", `${topology.baseUrl}/v1.0/issuance-transactions/${f.transactionId}`, {
          headers: auth(),
        });
        expect(tx.body.data.status).toBe("completed");
        expect(tx.body.data.credentialId).toBe(f.credentialId);
      }

      // Revocation and the status list read the same from both processes (bypassing the balancer).
      const revoked = done.filter((f) => f.revoked);
      expect(revoked.length).toBeGreaterThan(0);
      const listUri = new URL(
        (
          await send("GET", `${topology.baseUrl}/v1.0/credentials/${revoked[0]!.credentialId}`, {
            headers: auth(),
          })
        ).body.data.statusList.uri,
      );
      const lists = await Promise.all(
        [0, 1].map(async (i) => {
          const res = await fetch(`${topology.apiUrl(i)}${listUri.pathname}`, {
            headers: { accept: "application/statuslist+jwt" },
          });
          expect(res.status).toBe(200);
          const { status_list } = decodeJwt(await res.text()) as {
            status_list: { bits: StatusListBits; lst: string };
          };
          return { bits: status_list.bits, bytes: decodeStatusList(status_list.lst) };
        }),
      );
      expect(Buffer.from(lists[0]!.bytes).equals(Buffer.from(lists[1]!.bytes))).toBe(true);
      for (const f of issued.filter((f) => f.credentialId && f.statusIdx !== undefined)) {
        for (const list of lists)
          expect(getStatus(list.bytes, list.bits, f.statusIdx!)).toBe(f.revoked ? 1 : 0);
        for (const i of [0, 1]) {
          const c = await send("GET", `${topology.apiUrl(i)}/v1.0/credentials/${f.credentialId}`, {
            headers: auth(),
          });
          expect(c.body.data.status).toBe(f.revoked ? "revoked" : "active");
        }
      }
      for (const f of done) {
        for (const i of [0, 1]) {
          const s = await send("GET", `${topology.apiUrl(i)}/v1.0/verifications/${f.verifiedSession}`, {
            headers: auth(),
          });
          expect(s.body.data.status).toBe("verified");
        }
      }

      // Every event is delivered at least once: each delivery of the subscription succeeded, and the
      // receiver has every event it names (which includes one per 2xx above).
      const deadline = Date.now() + 60_000;
      let pending: { eventId: string; status: string }[] = [];
      for (;;) {
        ({ rows: pending } = await db.query(
          `SELECT d."eventId", d."status" FROM "WebhookDelivery" d WHERE d."subscriptionId" = $1
             AND (d."status" <> 'succeeded' OR d."eventId" <> ALL($2))
           UNION ALL
           SELECT e."id", 'not fanned out' FROM "OutboxEvent" e WHERE e."dispatchedAt" IS NULL`,
          [subscriptionId, [...received.keys()]],
        ));
        if (pending.length === 0 || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(pending).toEqual([]);
      const events = [...received.values()];
      const has = (type: string, field: string, value: unknown) =>
        events.some((e) => e.type === type && e.data[field] === value);
      for (const f of flows.filter((f) => f.transactionId))
        expect(has("issuance.transaction.created", "transactionId", f.transactionId)).toBe(true);
      for (const f of issued)
        expect(has("issuance.transaction.completed", "transactionId", f.transactionId)).toBe(true);
      for (const f of revoked) expect(has("credential.revoked", "credentialId", f.credentialId)).toBe(true);
      for (const f of done)
        expect(has("verification.session.verified", "verificationSessionId", f.verifiedSession)).toBe(true);
      expect(deliveries).toBeGreaterThanOrEqual(received.size);
    }, 150_000);

    it("a rolling restart (SIGTERM, then a new process once ready) under load fails no request", async () => {
      let stop = false;
      let answered = 0;
      const failed: string[] = [];
      const loops = Array.from({ length: 6 }, async () => {
        while (!stop) {
          const created = await send("POST", `${topology.baseUrl}/v1.0/issuance-transactions`, {
            headers: auth(),
            json: {
              credentialConfiguration: target.configuration,
              issuerId: target.issuerId,
              claims: CLAIMS,
            },
          });
          const read =
            created.status === 201
              ? await send("GET", `${topology.baseUrl}/v1.0/issuance-transactions/${created.body.data.id}`, {
                  headers: auth(),
                })
              : created;
          answered += created === read ? 1 : 2;
          for (const a of created === read ? [created] : [created, read])
            if (a.status >= 300) failed.push(`${a.status} ${JSON.stringify(a.body).slice(0, 120)}`);
        }
      });
      try {
        await new Promise((r) => setTimeout(r, 1_000));
        for (const i of [0, 1]) {
          await topology.stopApi(i, "SIGTERM");
          await topology.startApi(i);
          await new Promise((r) => setTimeout(r, 500));
        }
      } finally {
        stop = true;
        await Promise.all(loops);
      }
      expect(answered).toBeGreaterThan(100);
      expect(failed).toEqual([]);
    }, 90_000);
  },
);
