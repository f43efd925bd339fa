import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { webhookBodySchema } from "@cred/contracts/webhook-event-catalogue";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "@cred/contracts/webhook-events";
import {
  notifyExpiredTrustSources,
  notifyExpiringRelyingPartyCertificates,
  SCOPES,
  sweepExpired,
} from "@cred/core";
import { createTestAccessCa, createTestRegistrar, presentWithTestWallet } from "@cred/oid4vc";
import { buildTrustedListXml, createTestSigner, signTrustedListXml } from "@cred/oid4vc/trust-lists/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEnv, webhookSettings } from "../src/env";
import { activeIssuer } from "./fixtures";
import { importAccessCertificate } from "./fixtures/access-certificate";
import { FAST, receiver, until, verify, webhookHelpers } from "./fixtures/webhooks";
import { call, startTestServer, type TestServer } from "./harness";
import { itOnPostgres } from "./skip-reasons";
import { holderKey, nonce, proof, redeemOffer, requestCredential } from "./wallet-client";

/** The webhook event catalogue, and the worker in-process and as its own process. */

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

const { worker, subscribe, issue, deliveries } = webhookHelpers(() => t);

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
    // verification_policy.version_activated (the same content again, as version 2)
    const { identifier: _, ...content } = policy;
    expect(
      (
        await call(t, "POST", "/management/verification-policies/badge-check/versions", {
          key,
          body: content,
        })
      ).status,
    ).toBe(201);
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
    // credential.suspended (a suspended credential is rejected), credential.reinstated
    expect((await call(t, "POST", `/v1.0/credentials/${credentialId}/suspend`, { key })).status).toBe(200);
    expect(await present(await start())).toBe("rejected");
    expect((await call(t, "POST", `/v1.0/credentials/${credentialId}/reinstate`, { key })).status).toBe(200);
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
    // trust_source.refresh_failed: a trust source whose list is gone when it is refreshed
    const signer = await createTestSigner("CN=Catalogue TSL signer", { kind: "ec" });
    let listBody: string | null = signTrustedListXml(buildTrustedListXml({ territory: "DE" }), signer);
    const listServer = http.createServer((_req, res) =>
      listBody ? res.writeHead(200).end(listBody) : res.writeHead(404).end(),
    );
    await new Promise<void>((resolve) => listServer.listen(0, "127.0.0.1", resolve));
    const listUrl = `http://127.0.0.1:${(listServer.address() as AddressInfo).port}/tsl.xml`;
    const trustSource = await call(t, "POST", "/management/trust-sources", {
      key,
      body: { kind: "tsl", url: listUrl, signerCertificates: [signer.certificatePem] },
    });
    expect(trustSource.status, JSON.stringify(trustSource.body)).toBe(201);
    listBody = null;
    const refresh = `/management/trust-sources/${trustSource.body.data.id}/refresh`;
    expect((await call(t, "POST", refresh, { key })).status).toBe(422);
    await new Promise<void>((resolve) => listServer.close(() => resolve()));
    // verifier_certificate.expiring, registration_certificate.expiring, trust_source.expired: the worker's
    // sweep, a year on (docs/api/relying-party-certificates.md)
    const [accessCa, registrar] = await Promise.all([createTestAccessCa(), createTestRegistrar()]);
    await importAccessCertificate(
      t,
      key,
      accessCa,
      {
        organisationName: "Catalogue Oy",
        organisationIdentifier: "VATFI-12345678",
        dnsNames: ["verifier.example.com"],
      },
      { validityDays: 365 },
    );
    const registration = await call(t, "PUT", "/management/verifier-registration-certificate", {
      key,
      body: {
        registrationCertificate: await registrar.sign({
          name: "Catalogue",
          sub: { id: [{ type: "VAT", identifier: "VATFI-12345678" }] },
          credentials: [
            { format: "dc+sd-jwt", meta: issuer.credentialType, claim: [{ path: ["given_name"] }] },
          ],
          exp: Math.floor(Date.now() / 1000) + 90 * 86_400,
        }),
        trustAnchorPem: registrar.rootPem,
      },
    });
    expect(registration.status, JSON.stringify(registration.body)).toBe(200);
    const yearOn = new Date(Date.now() + 366 * 86_400_000);
    await notifyExpiringRelyingPartyCertificates(t.server.deps, { now: yearOn });
    await notifyExpiredTrustSources(t.server.deps, { now: yearOn });
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

  itOnPostgres(
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

  itOnPostgres(
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
