import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { refreshDueTrustSources } from "@cred/core";
import { SERVICE_STATUS, SERVICE_TYPE } from "@cred/oid4vc/trust-lists";
import {
  buildLote,
  buildTrustedListXml,
  createTestSigner,
  signLoteJws,
  signTrustedListXml,
  type TestService,
  type TestSigner,
} from "@cred/oid4vc/trust-lists/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until, webhookHelpers } from "./fixtures/webhooks";
import { type CallResult, call, errorCode, startTestServer, type TestServer } from "./harness";

/**
 * Trust sources (docs/api/trust-sources.md) over HTTP: the test serves its own lists from a loopback
 * server (allowed by the test server's development mode), signed by test signers; the served XML is
 * also checked with Debian's xmlsec1, so what the platform accepts is what a tool not written here accepts.
 */

const BASE = "/management/trust-sources";
const DAY = 86_400_000;
const XMLSEC1 = ["/usr/bin/xmlsec1", "/usr/local/bin/xmlsec1"].find((path) => existsSync(path));
const workDir = mkdtempSync(join(tmpdir(), "trust-sources-"));

let t: TestServer;
/** Production-like: no development mode, nothing allow-listed. */
let strict: TestServer;
let lists: http.Server;
let listBase: string;
const routes = new Map<string, { type: string; body: string; status?: number }>();

let lotlSigner: TestSigner;
let deSigner: TestSigner;
let otherSigner: TestSigner;
let loteSigner: TestSigner;
let pidCa: TestSigner;

beforeAll(async () => {
  [t, strict, lotlSigner, deSigner, otherSigner, loteSigner, pidCa] = await Promise.all([
    startTestServer(),
    startTestServer({ developmentMode: false, webhookAllowedHosts: [] }),
    createTestSigner("CN=Test LoTL signer EU"),
    createTestSigner("CN=Test TSL signer DE"),
    createTestSigner("CN=Someone else"),
    createTestSigner("CN=Test LoTE signer", { kind: "ec" }),
    createTestSigner("CN=Test PID provider CA"),
  ]);
  lists = http.createServer((req, res) => {
    const route = routes.get(req.url ?? "");
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(route.status ?? 200, { "content-type": route.type }).end(route.body);
  });
  await new Promise<void>((resolve) => lists.listen(0, "127.0.0.1", resolve));
  listBase = `http://127.0.0.1:${(lists.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  rmSync(workDir, { recursive: true, force: true });
  await Promise.all([
    t?.close(),
    strict?.close(),
    new Promise<void>((resolve) => (lists ? lists.close(() => resolve()) : resolve())),
  ]);
});

/** Debian's xmlsec1 on a signed list, trusting only `signer`: true when it reports OK. */
function xmlsec1Verifies(xml: string, signer: TestSigner): boolean {
  const file = join(workDir, `list-${Math.random().toString(36).slice(2)}.xml`);
  const ca = join(workDir, `signer-${Math.random().toString(36).slice(2)}.pem`);
  writeFileSync(file, xml);
  writeFileSync(ca, signer.certificatePem);
  try {
    execFileSync(XMLSEC1 as string, ["--verify", "--trusted-pem", ca, file], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
}

const grantedPid = (): TestService => ({
  type: SERVICE_TYPE.caQc,
  status: SERVICE_STATUS.granted,
  statusStartingTime: new Date(Date.now() - 10 * DAY),
  certificatesBase64: [pidCa.certificateBase64],
  name: "PID CA",
});

/** A national list (DE) signed by `signer`. */
function nationalList(
  signer: TestSigner,
  options: { sequenceNumber?: number; nextUpdate?: Date; services?: TestService[] } = {},
) {
  return signTrustedListXml(
    buildTrustedListXml({
      territory: "DE",
      sequenceNumber: options.sequenceNumber ?? 1,
      ...(options.nextUpdate ? { nextUpdate: options.nextUpdate } : {}),
      providers: [{ name: "Test TSP", services: options.services ?? [grantedPid()] }],
    }),
    signer,
  );
}

/** A LoTL pointing to `/de-<tag>.xml`, signed by the LoTL signer; the DE list signed by the DE signer. */
function lotl(tag: string, sequenceNumber = 1) {
  return signTrustedListXml(
    buildTrustedListXml({
      territory: "EU",
      sequenceNumber,
      listType: "http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUlistofthelists",
      pointers: [
        {
          location: `${listBase}/de-${tag}.xml`,
          territory: "DE",
          signerCertificatesBase64: [deSigner.certificateBase64],
        },
      ],
    }),
    lotlSigner,
  );
}

const serveXml = (path: string, body: string) =>
  routes.set(path, { type: "application/vnd.etsi.tsl+xml", body });

/** The signed XML with one byte of the signed content changed (the service name). */
const tampered = (xml: string) => xml.replace("Test TSP", "Test TSQ");

const source = (kind: string, path: string, signer: TestSigner, extra: Record<string, unknown> = {}) => ({
  kind,
  url: `${listBase}${path}`,
  signerCertificates: [signer.certificatePem],
  ...extra,
});

const create = (body: unknown, server: TestServer = t, key = server.adminKey) =>
  call(server, "POST", BASE, { key, body });

/** The detail code of a 422 TrustListRefused. */
function refusalCode(r: CallResult): string {
  expect(r.status).toBe(422);
  expect(errorCode(r)).toBe("TrustListRefused");
  return r.body.error.details[0].code;
}

describe("xmlsec1 cross-check of the served lists", () => {
  it.skipIf(!XMLSEC1)(
    `xmlsec1 (not written here) accepts the served LoTL and DE list with their signers and refuses the other signer and a changed byte${XMLSEC1 ? "" : " [xmlsec1 is not installed: apt-get install xmlsec1]"}`,
    () => {
      const de = nationalList(deSigner);
      expect(xmlsec1Verifies(de, deSigner)).toBe(true);
      expect(xmlsec1Verifies(lotl("x"), lotlSigner)).toBe(true);
      expect(xmlsec1Verifies(de, otherSigner)).toBe(false);
      expect(xmlsec1Verifies(tampered(de), deSigner)).toBe(false);
    },
  );
});

describe("TrustSources_Create", () => {
  it("201 for a TSL: fetched, verified and stored with its services", async () => {
    serveXml("/create-tsl.xml", nationalList(deSigner));
    const r = await create(source("tsl", "/create-tsl.xml", deSigner, { description: "DE" }));
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      kind: "tsl",
      url: `${listBase}/create-tsl.xml`,
      description: "DE",
      status: "current",
      lastError: null,
      refreshIntervalSeconds: 21_600,
      lists: [
        {
          location: `${listBase}/create-tsl.xml`,
          territory: "DE",
          sequenceNumber: 1,
          services: 1,
          error: null,
        },
      ],
    });
    expect(r.body.data.id).toMatch(/^ts_/);
    // The next refresh is due within the interval (sooner than NextUpdate, 30 days out).
    const next = Date.parse(r.body.data.nextRefreshAt) - Date.now();
    expect(next).toBeGreaterThan(21_000_000);
    expect(next).toBeLessThanOrEqual(21_600_000);
  });

  it("201 for a LoTL: the pointed-to list is fetched and verified with the pointer's own signer", async () => {
    serveXml("/lotl-a.xml", lotl("a"));
    serveXml("/de-a.xml", nationalList(deSigner));
    const r = await create(source("lotl", "/lotl-a.xml", lotlSigner));
    expect(r.status).toBe(201);
    expect(r.body.data.status).toBe("current");
    expect(r.body.data.lists).toMatchObject([
      { territory: "EU", services: 0, error: null },
      { location: `${listBase}/de-a.xml`, territory: "DE", services: 1, error: null },
    ]);
  });

  it("201 for a LoTE (TS 119 602 JWS with the signer in x5c)", async () => {
    const now = Date.now();
    routes.set("/lote.jws", {
      type: "application/jose",
      body: await signLoteJws(
        buildLote({
          sequenceNumber: 3,
          listType: "http://uri.etsi.org/19602/LoTEType/WalletProvidersList",
          entities: [
            {
              name: "Wallet provider",
              services: [
                {
                  type: SERVICE_TYPE.walletSolutionIssuance,
                  name: "Wallet attestations",
                  certificatesBase64: [pidCa.certificateBase64],
                  status: SERVICE_STATUS.granted,
                  statusStartingTime: new Date(now - DAY),
                },
              ],
            },
          ],
        }),
        loteSigner,
      ),
    });
    const r = await create(source("lote", "/lote.jws", loteSigner));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data.lists).toMatchObject([{ territory: "EU", sequenceNumber: 3, services: 1 }]);
  });

  it("422 TrustListRefused/BadSignature for a list changed after signing; nothing is stored", async () => {
    serveXml("/bad-signature.xml", tampered(nationalList(deSigner)));
    const before = (await call(t, "GET", BASE, { key: t.adminKey })).body.data.length;
    expect(refusalCode(await create(source("tsl", "/bad-signature.xml", deSigner)))).toBe("BadSignature");
    expect((await call(t, "GET", BASE, { key: t.adminKey })).body.data.length).toBe(before);
  });

  it("422 TrustListRefused/UnknownSigner for a list signed by a certificate that is not an anchor", async () => {
    serveXml("/other-signer.xml", nationalList(otherSigner));
    expect(refusalCode(await create(source("tsl", "/other-signer.xml", deSigner)))).toBe("UnknownSigner");
  });

  it("422 TrustListRefused/ListExpired for a list whose NextUpdate has passed", async () => {
    serveXml("/expired.xml", nationalList(deSigner, { nextUpdate: new Date(Date.now() - 60_000) }));
    expect(refusalCode(await create(source("tsl", "/expired.xml", deSigner)))).toBe("ListExpired");
  });

  it("422 TrustListRefused/FetchFailed when the list is not there", async () => {
    expect(refusalCode(await create(source("tsl", "/missing.xml", deSigner)))).toBe("FetchFailed");
  });

  it("422 TrustListRefused/MalformedList for an XML list given as a LoTE", async () => {
    serveXml("/xml-as-lote.xml", nationalList(deSigner));
    expect(refusalCode(await create(source("lote", "/xml-as-lote.xml", deSigner)))).toMatch(
      /MalformedList|BadSignature/,
    );
  });

  it("400 TrustSourceUrlNotAllowed for a loopback URL outside development mode (the outbound-fetch guard)", async () => {
    const r = await create(source("tsl", "/create-tsl.xml", deSigner), strict);
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("TrustSourceUrlNotAllowed");
  });

  it("400 for an unknown kind, a missing signer and a certificate that does not parse", async () => {
    const unknownKind = await create(source("crl", "/create-tsl.xml", deSigner));
    expect(unknownKind.status).toBe(400);
    const noSigner = await create({ ...source("tsl", "/create-tsl.xml", deSigner), signerCertificates: [] });
    expect(noSigner.status).toBe(400);
    const garbage = await create({
      ...source("tsl", "/create-tsl.xml", deSigner),
      signerCertificates: ["-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"],
    });
    expect(garbage.status).toBe(400);
    expect(errorCode(garbage)).toBe("InvalidCertificate");
  });

  it("401 without a key; 403 with a read-only key", async () => {
    serveXml("/scoped.xml", nationalList(deSigner));
    const anonymous = await create(source("tsl", "/scoped.xml", deSigner), t, null as unknown as string);
    expect(anonymous.status).toBe(401);
    const readOnly = await t.key({ scopes: ["trust-sources.read"] });
    const r = await create(source("tsl", "/scoped.xml", deSigner), t, readOnly);
    expect(r.status).toBe(403);
    expect(errorCode(r)).toBe("MissingScope");
  });
});

describe("TrustSources_Get / _List / _Update / _Delete", () => {
  let id: string;
  beforeAll(async () => {
    serveXml("/crud.xml", nationalList(deSigner));
    const r = await create(source("tsl", "/crud.xml", deSigner));
    expect(r.status).toBe(201);
    id = r.body.data.id;
  });

  it("200 Get and List with trust-sources.read; 403 without it", async () => {
    const reader = await t.key({ scopes: ["trust-sources.read"] });
    const got = await call(t, "GET", `${BASE}/${id}`, { key: reader });
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({ id, kind: "tsl", status: "current" });
    const listed = await call(t, "GET", BASE, { key: reader });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((s: { id: string }) => s.id)).toContain(id);
    const noScope = await t.key({ scopes: ["webhooks.read"] });
    expect((await call(t, "GET", `${BASE}/${id}`, { key: noScope })).status).toBe(403);
    expect((await call(t, "GET", BASE, { key: noScope })).status).toBe(403);
  });

  it("404 for another tenant's and another environment's trust source, which their lists do not show", async () => {
    const other = await t.otherTenant();
    const foreign = await call(t, "GET", `${BASE}/${id}`, { key: other.key });
    expect(foreign.status).toBe(404);
    expect(errorCode(foreign)).toBe("NotFound");
    expect((await call(t, "GET", BASE, { key: other.key })).body.data).toEqual([]);
    const production = await t.key({ environment: "production" });
    expect((await call(t, "GET", `${BASE}/${id}`, { key: production })).status).toBe(404);
    expect((await call(t, "POST", `${BASE}/${id}/refresh`, { key: other.key })).status).toBe(404);
    expect(
      (await call(t, "PATCH", `${BASE}/${id}`, { key: other.key, body: { description: "x" } })).status,
    ).toBe(404);
    expect((await call(t, "DELETE", `${BASE}/${id}`, { key: other.key })).status).toBe(404);
  });

  it("200 Update of the interval, signers and description; 400 ReadOnlyField for url or kind", async () => {
    const r = await call(t, "PATCH", `${BASE}/${id}`, {
      key: t.adminKey,
      body: {
        refreshIntervalSeconds: 3600,
        description: "national list",
        signerCertificates: [deSigner.certificatePem, otherSigner.certificatePem],
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ refreshIntervalSeconds: 3600, description: "national list" });
    expect(r.body.data.signerCertificates).toHaveLength(2);
    const cleared = await call(t, "PATCH", `${BASE}/${id}`, { key: t.adminKey, body: { description: null } });
    expect(cleared.body.data.description).toBeNull();
    const url = await call(t, "PATCH", `${BASE}/${id}`, {
      key: t.adminKey,
      body: { url: `${listBase}/x.xml` },
    });
    expect(url.status).toBe(400);
    expect(errorCode(url)).toBe("ReadOnlyField");
    const tooShort = await call(t, "PATCH", `${BASE}/${id}`, {
      key: t.adminKey,
      body: { refreshIntervalSeconds: 5 },
    });
    expect(tooShort.status).toBe(400);
    const reader = await t.key({ scopes: ["trust-sources.read"] });
    expect(
      (await call(t, "PATCH", `${BASE}/${id}`, { key: reader, body: { description: "x" } })).status,
    ).toBe(403);
  });

  it("200 Delete answers the source as it was; then 404 (and 404 again)", async () => {
    const reader = await t.key({ scopes: ["trust-sources.read"] });
    expect((await call(t, "DELETE", `${BASE}/${id}`, { key: reader })).status).toBe(403);
    const r = await call(t, "DELETE", `${BASE}/${id}`, { key: t.adminKey });
    expect(r.status).toBe(200);
    expect(r.body.data.id).toBe(id);
    expect((await call(t, "GET", `${BASE}/${id}`, { key: t.adminKey })).status).toBe(404);
    expect((await call(t, "DELETE", `${BASE}/${id}`, { key: t.adminKey })).status).toBe(404);
    expect((await call(t, "POST", `${BASE}/${id}/refresh`, { key: t.adminKey })).status).toBe(404);
  });
});

describe("TrustSources_Refresh: stale-while-valid", () => {
  const outbox = (type: string) =>
    t.server.database.prisma.outboxEvent.findMany({
      where: { tenantId: t.tenantId, environment: "sandbox", type },
      orderBy: { occurredAt: "asc" },
    });

  it("a failed refresh keeps the last good copy (stale), records why, emits an event; a good one makes it current", async () => {
    serveXml("/refresh.xml", nationalList(deSigner, { sequenceNumber: 5 }));
    const created = await create(source("tsl", "/refresh.xml", deSigner));
    expect(created.status).toBe(201);
    const id = created.body.data.id;

    serveXml("/refresh.xml", tampered(nationalList(deSigner, { sequenceNumber: 6 })));
    const failed = await call(t, "POST", `${BASE}/${id}/refresh`, { key: t.adminKey });
    expect(refusalCode(failed)).toBe("BadSignature");
    const stale = (await call(t, "GET", `${BASE}/${id}`, { key: t.adminKey })).body.data;
    expect(stale).toMatchObject({
      status: "stale",
      lastError: { code: "BadSignature" },
      lists: [{ sequenceNumber: 5, services: 1 }],
    });
    expect(stale.listsFetchedAt).toBe(created.body.data.listsFetchedAt);
    const events = (await outbox("trust_source.refresh_failed")).filter(
      (e) => (e.payload as { trustSourceId: string }).trustSourceId === id,
    );
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({
      code: "BadSignature",
      status: "stale",
      url: `${listBase}/refresh.xml`,
    });

    // A list that goes back in sequence is refused too (TS 119 612: TSLSequenceNumber increases).
    serveXml("/refresh.xml", nationalList(deSigner, { sequenceNumber: 4 }));
    expect(refusalCode(await call(t, "POST", `${BASE}/${id}/refresh`, { key: t.adminKey }))).toBe(
      "SequenceNumberDecreased",
    );

    serveXml("/refresh.xml", nationalList(deSigner, { sequenceNumber: 6 }));
    const ok = await call(t, "POST", `${BASE}/${id}/refresh`, { key: t.adminKey });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({
      status: "current",
      lastError: null,
      lists: [{ sequenceNumber: 6 }],
    });

    const reader = await t.key({ scopes: ["trust-sources.read"] });
    expect((await call(t, "POST", `${BASE}/${id}/refresh`, { key: reader })).status).toBe(403);
  });

  it("a LoTL whose pointed-to list fails keeps that list's last good copy, with the error beside it", async () => {
    serveXml("/lotl-b.xml", lotl("b"));
    serveXml("/de-b.xml", nationalList(deSigner));
    const created = await create(source("lotl", "/lotl-b.xml", lotlSigner));
    expect(created.status).toBe(201);
    serveXml("/de-b.xml", nationalList(otherSigner, { sequenceNumber: 2 }));
    const r = await call(t, "POST", `${BASE}/${created.body.data.id}/refresh`, { key: t.adminKey });
    expect(r.status).toBe(200);
    expect(r.body.data.status).toBe("current");
    expect(r.body.data.lists[1]).toMatchObject({
      territory: "DE",
      sequenceNumber: 1,
      services: 1,
      error: { code: "UnknownSigner" },
    });
  });

  it("the worker's sweep refreshes the sources that are due (NextUpdate or interval) and records failures", async () => {
    serveXml("/sweep.xml", nationalList(deSigner, { nextUpdate: new Date(Date.now() + 2 * DAY) }));
    const created = await create(
      source("tsl", "/sweep.xml", deSigner, { refreshIntervalSeconds: 7 * 86_400 }),
    );
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    // Due at NextUpdate (2 days), before the interval (7 days).
    expect(Date.parse(created.body.data.nextRefreshAt)).toBeLessThanOrEqual(Date.now() + 2 * DAY);

    routes.delete("/sweep.xml");
    const later = new Date(Date.parse(created.body.data.nextRefreshAt) + 1000);
    await refreshDueTrustSources(t.server.deps, { now: later, batch: 1000 });
    const after = (await call(t, "GET", `${BASE}/${id}`, { key: t.adminKey })).body.data;
    expect(after.lastError).toMatchObject({ code: "FetchFailed" });
    expect(after.lists).toHaveLength(1);
    expect(Date.parse(after.lastRefreshAt)).toBe(later.getTime());
    // Read now, the kept copy is still before its NextUpdate: stale, not expired.
    expect(after.status).toBe("stale");
  });

  it("the webhook worker's sweeper runs the due refreshes beside its rounds, and stop waits for them", async () => {
    serveXml("/worker.xml", nationalList(deSigner));
    const created = await create(source("tsl", "/worker.xml", deSigner));
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    // Due now, and the list is gone: the sweep records a failed refresh.
    await t.server.database.prisma.trustSource.update({ where: { id }, data: { nextRefreshAt: new Date() } });
    routes.delete("/worker.xml");
    const worker = webhookHelpers(() => t).worker({ sweepIntervalMs: 1 });
    worker.start();
    try {
      const after = await until("the worker's refresh", async () => {
        const got = (await call(t, "GET", `${BASE}/${id}`, { key: t.adminKey })).body.data;
        return got.lastError ? got : null;
      });
      expect(after).toMatchObject({ status: "stale", lastError: { code: "FetchFailed" } });
    } finally {
      await worker.stop();
    }
  });
});
