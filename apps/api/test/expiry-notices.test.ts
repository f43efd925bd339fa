import { notifyExpiredTrustSources, notifyExpiringRelyingPartyCertificates } from "@cred/core";
import { createTestAccessCa, createTestRegistrar, type TestAccessCa, type TestRegistrar } from "@cred/oid4vc";
import { SERVICE_STATUS, SERVICE_TYPE } from "@cred/oid4vc/trust-lists";
import {
  buildTrustedListXml,
  createTestSigner,
  signTrustedListXml,
  type TestSigner,
} from "@cred/oid4vc/trust-lists/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activeIssuer } from "./fixtures";
import { importAccessCertificate } from "./fixtures/access-certificate";
import { type ServedLists, serveListRoutes } from "./fixtures/trusted-list-server";
import { receiver, until, verify, webhookHelpers } from "./fixtures/webhooks";
import { call, startTestServer, type TestServer } from "./harness";

const OUR_ID = "VATFI-12345678";
const DAY_MS = 86_400_000;

let t: TestServer;
let accessCa: TestAccessCa;
let registrar: TestRegistrar;
let tslSigner: TestSigner;
let lists: ServedLists | undefined;
let listBase: string;
const routes = new Map<string, string>();

beforeAll(async () => {
  [t, accessCa, registrar, tslSigner] = await Promise.all([
    startTestServer(),
    createTestAccessCa(),
    createTestRegistrar(),
    createTestSigner("CN=Expiry TSL signer"),
  ]);
  // The CSR names a DNS name: the public host must be one.
  t.server.deps.config.publicBaseUrl = t.baseUrl.replace("127.0.0.1", "localhost");
  lists = await serveListRoutes(routes);
  listBase = lists.base;
}, 120_000);
afterAll(async () => {
  await Promise.all([t?.close(), lists?.close()]);
});

/** Imports the test access CA's certificate for a signing request in the key's environment. */
const importWebshopCertificate = (key: string, validityDays: number) =>
  importAccessCertificate(
    t,
    key,
    accessCa,
    { organisationName: "Webshop Oy", organisationIdentifier: OUR_ID },
    { validityDays },
  );

async function uploadRegistration(key: string, credentialType: string, expiresInDays: number) {
  const r = await call(t, "PUT", "/management/verifier-registration-certificate", {
    key,
    body: {
      registrationCertificate: await registrar.sign({
        name: "Webshop",
        sub: { id: [{ type: "VAT", identifier: OUR_ID }] },
        credentials: [{ format: "dc+sd-jwt", meta: credentialType, claim: [{ path: ["given_name"] }] }],
        exp: Math.floor(Date.now() / 1000) + expiresInDays * 86_400,
      }),
      trustAnchorPem: registrar.rootPem,
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data as { expiresAt: string };
}

const events = async (tenantId: string, type: string, environment = "sandbox") =>
  (
    await t.server.database.prisma.outboxEvent.findMany({
      where: { tenantId, environment, type },
      orderBy: { occurredAt: "asc" },
    })
  ).map((event) => ({ ...event, data: event.payload as Record<string, unknown> }));

/** Two sweeps at once, as two worker processes would run them, then one more, as after a restart. */
async function sweepRelyingPartyCertificates(now?: Date) {
  const options = now ? { now } : {};
  await Promise.all([
    notifyExpiringRelyingPartyCertificates(t.server.deps, options),
    notifyExpiringRelyingPartyCertificates(t.server.deps, options),
  ]);
  await notifyExpiringRelyingPartyCertificates(t.server.deps, options);
}

describe("verifier_certificate.expiring", () => {
  it("sent once for an access certificate within 30 days of its expiry, in its tenant and environment only", async () => {
    const tenant = await t.otherTenant();
    const bystander = await t.otherTenant();
    const production = await t.key({ tenantId: tenant.tenantId, environment: "production" });
    const installed = await importWebshopCertificate(tenant.key, 20);
    await importWebshopCertificate(production, 365);
    await sweepRelyingPartyCertificates();
    const sent = await events(tenant.tenantId, "verifier_certificate.expiring");
    expect(sent).toHaveLength(1);
    expect(sent[0]!.data).toEqual({
      subject: installed.subject,
      serialNumber: installed.serialNumber,
      accessCertificate: true,
      organisationIdentifiers: [OUR_ID],
      expiresAt: new Date(installed.notAfter).toISOString(),
      daysLeft: expect.any(Number),
    });
    expect((sent[0]!.data as { daysLeft: number }).daysLeft).toBeGreaterThanOrEqual(19);
    expect((sent[0]!.data as { daysLeft: number }).daysLeft).toBeLessThanOrEqual(21);
    // Production's certificate is far from its expiry; the other tenant has none.
    expect(await events(tenant.tenantId, "verifier_certificate.expiring", "production")).toEqual([]);
    expect(await events(bystander.tenantId, "verifier_certificate.expiring")).toEqual([]);
  });

  it("not sent outside the window; a renewed certificate gets its own notice when its time comes", async () => {
    const tenant = await t.otherTenant();
    const first = await importWebshopCertificate(tenant.key, 60);
    await sweepRelyingPartyCertificates();
    expect(await events(tenant.tenantId, "verifier_certificate.expiring")).toEqual([]);
    // 35 days on, it is within 30 days.
    await sweepRelyingPartyCertificates(new Date(Date.now() + 35 * DAY_MS));
    expect((await events(tenant.tenantId, "verifier_certificate.expiring")).map((e) => e.data)).toMatchObject(
      [{ serialNumber: first.serialNumber }],
    );
    const renewed = await importWebshopCertificate(tenant.key, 90);
    await sweepRelyingPartyCertificates(new Date(Date.now() + 35 * DAY_MS));
    expect(await events(tenant.tenantId, "verifier_certificate.expiring")).toHaveLength(1);
    await sweepRelyingPartyCertificates(new Date(Date.now() + 70 * DAY_MS));
    expect((await events(tenant.tenantId, "verifier_certificate.expiring")).map((e) => e.data)).toMatchObject(
      [{ serialNumber: first.serialNumber }, { serialNumber: renewed.serialNumber }],
    );
  });

  it("the window follows certificateExpiryNoticeDays (CERTIFICATE_EXPIRY_NOTICE_DAYS)", async () => {
    const tenant = await t.otherTenant();
    await importWebshopCertificate(tenant.key, 60);
    const config = t.server.deps.config;
    const before = config.certificateExpiryNoticeDays;
    config.certificateExpiryNoticeDays = 90;
    try {
      await notifyExpiringRelyingPartyCertificates(t.server.deps);
    } finally {
      config.certificateExpiryNoticeDays = before;
    }
    expect(await events(tenant.tenantId, "verifier_certificate.expiring")).toHaveLength(1);
  });
});

describe("registration_certificate.expiring", () => {
  it("sent once within 30 days of exp; a re-uploaded certificate gets its own notice", async () => {
    const tenant = await t.otherTenant();
    const issuer = await activeIssuer(t, tenant.key);
    await importWebshopCertificate(tenant.key, 365);
    const far = await uploadRegistration(tenant.key, issuer.credentialType, 90);
    await sweepRelyingPartyCertificates();
    expect(await events(tenant.tenantId, "registration_certificate.expiring")).toEqual([]);
    const near = await uploadRegistration(tenant.key, issuer.credentialType, 10);
    await sweepRelyingPartyCertificates();
    const sent = await events(tenant.tenantId, "registration_certificate.expiring");
    expect(sent.map((e) => e.data)).toEqual([
      {
        registrationCertificateId: expect.stringMatching(/^vreg_/),
        relyingParty: "Webshop",
        relyingPartyIds: [OUR_ID],
        expiresAt: near.expiresAt,
        daysLeft: 10,
      },
    ]);
    expect(far.expiresAt).not.toBe(near.expiresAt);
    // A renewal uploaded again is another certificate: its expiry is notified again.
    await uploadRegistration(tenant.key, issuer.credentialType, 5);
    await sweepRelyingPartyCertificates();
    expect(await events(tenant.tenantId, "registration_certificate.expiring")).toHaveLength(2);
  });
});

describe("trust_source.expired", () => {
  it("sent once when the last good copy passes its NextUpdate; again only for a later copy that lapses", async () => {
    const tenant = await t.otherTenant();
    const list = (nextUpdate: Date, sequenceNumber: number) =>
      signTrustedListXml(
        buildTrustedListXml({
          territory: "DE",
          sequenceNumber,
          nextUpdate,
          providers: [
            {
              name: "Expiry TSP",
              services: [
                {
                  type: SERVICE_TYPE.caQc,
                  status: SERVICE_STATUS.granted,
                  statusStartingTime: new Date(Date.now() - DAY_MS),
                  certificatesBase64: [tslSigner.certificateBase64],
                },
              ],
            },
          ],
        }),
        tslSigner,
      );
    const firstNextUpdate = new Date(Date.now() + 2 * DAY_MS);
    routes.set("/expiry.xml", list(firstNextUpdate, 1));
    const created = await call(t, "POST", "/management/trust-sources", {
      key: tenant.key,
      body: { kind: "tsl", url: `${listBase}/expiry.xml`, signerCertificates: [tslSigner.certificatePem] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id;
    await notifyExpiredTrustSources(t.server.deps);
    expect(await events(tenant.tenantId, "trust_source.expired")).toEqual([]);

    const lapsed = new Date(Date.now() + 3 * DAY_MS);
    await Promise.all([
      notifyExpiredTrustSources(t.server.deps, { now: lapsed }),
      notifyExpiredTrustSources(t.server.deps, { now: lapsed }),
    ]);
    await notifyExpiredTrustSources(t.server.deps, { now: lapsed });
    expect((await events(tenant.tenantId, "trust_source.expired")).map((e) => e.data)).toEqual([
      {
        trustSourceId: id,
        url: `${listBase}/expiry.xml`,
        nextUpdate: firstNextUpdate.toISOString(),
      },
    ]);

    // A refresh brings a copy with a later NextUpdate; when that one lapses too, a second notice.
    const secondNextUpdate = new Date(Date.now() + 10 * DAY_MS);
    routes.set("/expiry.xml", list(secondNextUpdate, 2));
    expect(
      (await call(t, "POST", `/management/trust-sources/${id}/refresh`, { key: tenant.key })).status,
    ).toBe(200);
    await notifyExpiredTrustSources(t.server.deps, { now: lapsed });
    expect(await events(tenant.tenantId, "trust_source.expired")).toHaveLength(1);
    await notifyExpiredTrustSources(t.server.deps, { now: new Date(Date.now() + 11 * DAY_MS) });
    expect(await events(tenant.tenantId, "trust_source.expired")).toHaveLength(2);
    // A deleted source is not notified.
    expect((await call(t, "DELETE", `/management/trust-sources/${id}`, { key: tenant.key })).status).toBe(
      200,
    );
    await notifyExpiredTrustSources(t.server.deps, { now: new Date(Date.now() + 400 * DAY_MS) });
    expect(await events(tenant.tenantId, "trust_source.expired")).toHaveLength(2);
  });
});

describe("delivered by the worker", () => {
  it("a subscription to verifier_certificate.expiring receives it, signed, from the worker's sweep", async () => {
    const hooks = webhookHelpers(() => t);
    const tenant = await t.otherTenant();
    const inbox = await receiver();
    const subscription = await hooks.subscribe(tenant.key, inbox.url, ["verifier_certificate.expiring"]);
    const installed = await importWebshopCertificate(tenant.key, 7);
    const worker = hooks.worker({ sweepIntervalMs: 1 });
    worker.start();
    try {
      const delivered = await until("the expiry notice", async () => inbox.received[0]);
      expect(verify(subscription.secret, delivered)).toBeTruthy();
      const body = JSON.parse(delivered.body);
      expect(body).toMatchObject({
        type: "verifier_certificate.expiring",
        data: { serialNumber: installed.serialNumber, accessCertificate: true },
      });
    } finally {
      await worker.stop();
      await inbox.close();
    }
    expect(await events(tenant.tenantId, "verifier_certificate.expiring")).toHaveLength(1);
  });
});
