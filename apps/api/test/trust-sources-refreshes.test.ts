import { TRUST_SOURCE_REFRESHES_KEPT } from "@cred/contracts/trust-sources";
import { refreshDueTrustSources } from "@cred/core";
import { SERVICE_STATUS, SERVICE_TYPE } from "@cred/oid4vc/trust-lists";
import {
  buildTrustedListXml,
  createTestSigner,
  signTrustedListXml,
  type TestSigner,
} from "@cred/oid4vc/trust-lists/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServedLists, serveListRoutes } from "./fixtures/trusted-list-server";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

/**
 * TrustSources_ListRefreshes (docs/api/trust-sources.md, *Refresh history*): every refresh attempt of a
 * trust source is recorded (create, manual, schedule) with its outcome, reason, the copy in use after it
 * and whether the last good copy was kept. Lists are signed by test signers and served from loopback.
 */

const BASE = "/management/trust-sources";
const DAY = 86_400_000;

let t: TestServer;
let lists: ServedLists | undefined;
let listBase: string;
const routes = new Map<string, string>();
let deSigner: TestSigner;
let lotlSigner: TestSigner;
let pidCa: TestSigner;

beforeAll(async () => {
  [t, deSigner, lotlSigner, pidCa] = await Promise.all([
    startTestServer(),
    createTestSigner("CN=Refreshes DE signer"),
    createTestSigner("CN=Refreshes LoTL signer"),
    createTestSigner("CN=Refreshes PID CA"),
  ]);
  lists = await serveListRoutes(routes);
  listBase = lists.base;
}, 120_000);
afterAll(async () => {
  await Promise.all([t?.close(), lists?.close()]);
});

/** A DE trusted list with `services` granted CA services, signed by the DE signer. */
function nationalList(sequenceNumber: number, services = 1) {
  return signTrustedListXml(
    buildTrustedListXml({
      territory: "DE",
      sequenceNumber,
      providers: [
        {
          name: "Refreshes TSP",
          services: Array.from({ length: services }, (_, i) => ({
            type: SERVICE_TYPE.caQc,
            status: SERVICE_STATUS.granted,
            statusStartingTime: new Date(Date.now() - 10 * DAY),
            certificatesBase64: [pidCa.certificateBase64],
            name: `PID CA ${i + 1}`,
          })),
        },
      ],
    }),
    deSigner,
  );
}

/** Changed after signing: BadSignature. */
const tampered = (xml: string) => xml.replace("Refreshes TSP", "Refreshes TSQ");

async function createTsl(path: string): Promise<string> {
  const created = await call(t, "POST", BASE, {
    key: t.adminKey,
    body: { kind: "tsl", url: `${listBase}${path}`, signerCertificates: [deSigner.certificatePem] },
  });
  expect(created.status).toBe(201);
  return created.body.data.id;
}

const refresh = (id: string) => call(t, "POST", `${BASE}/${id}/refresh`, { key: t.adminKey });
const refreshes = (id: string, query = "", key = t.adminKey) =>
  call(t, "GET", `${BASE}/${id}/refreshes${query}`, { key });

describe("TrustSources_ListRefreshes", () => {
  let sourceId: string;

  beforeAll(async () => {
    routes.set("/history.xml", nationalList(1, 1));
    sourceId = await createTsl("/history.xml");
    routes.set("/history.xml", nationalList(2, 2));
    expect((await refresh(sourceId)).status).toBe(200);
    routes.set("/history.xml", tampered(nationalList(3, 3)));
    expect((await refresh(sourceId)).status).toBe(422);
    routes.delete("/history.xml");
    expect((await refresh(sourceId)).status).toBe(422);
  }, 60_000);

  it("200: a good refresh, a refused one (bad signature) and a failed fetch, newest first, the last good copy kept", async () => {
    const reader = await t.key({ scopes: ["trust-sources.read"] });
    const r = await refreshes(sourceId, "", reader);
    expect(r.status).toBe(200);
    expect(r.headers.get("x-ms-request-id")).toEqual(expect.any(String));
    expect(r.body.nextCursor).toBeNull();
    const [failed, refused, ok, created] = r.body.data;
    expect(r.body.data).toHaveLength(4);
    expect(created).toMatchObject({
      trigger: "create",
      outcome: "ok",
      reason: null,
      sequenceNumber: 1,
      services: 1,
      lastGoodCopyKept: false,
      failedLists: [],
    });
    expect(ok).toMatchObject({
      trigger: "manual",
      outcome: "ok",
      reason: null,
      sequenceNumber: 2,
      services: 2,
      lastGoodCopyKept: false,
    });
    expect(ok.issuedAt).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
    expect(Date.parse(ok.nextUpdate)).toBeGreaterThan(Date.now());
    expect(refused).toMatchObject({
      trigger: "manual",
      outcome: "refused",
      reason: { code: "BadSignature" },
      // The copy in use after it: still sequence 2 with its 2 services.
      sequenceNumber: 2,
      services: 2,
      nextUpdate: ok.nextUpdate,
      lastGoodCopyKept: true,
    });
    expect(failed).toMatchObject({
      trigger: "manual",
      outcome: "failed",
      reason: { code: "FetchFailed", message: expect.any(String) },
      sequenceNumber: 2,
      services: 2,
      lastGoodCopyKept: true,
    });
    const times = r.body.data.map((entry: { attemptedAt: string }) => Date.parse(entry.attemptedAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    // The source itself still runs on the last good copy.
    const source = (await call(t, "GET", `${BASE}/${sourceId}`, { key: reader })).body.data;
    expect(source).toMatchObject({ status: "stale", lastError: { code: "FetchFailed" } });
    expect(source.lists[0]).toMatchObject({ sequenceNumber: 2, services: 2 });
  });

  it("200: pages follow nextCursor to older attempts", async () => {
    const first = await refreshes(sourceId, "?limit=3");
    expect(first.body.data.map((e: { outcome: string }) => e.outcome)).toEqual(["failed", "refused", "ok"]);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await refreshes(sourceId, `?limit=3&cursor=${first.body.nextCursor}`);
    expect(second.status).toBe(200);
    expect(second.body.data.map((e: { trigger: string }) => e.trigger)).toEqual(["create"]);
    expect(second.body.nextCursor).toBeNull();
  });

  it("the worker's scheduled refresh is recorded as `schedule`", async () => {
    routes.set("/history.xml", nationalList(4, 1));
    await refreshDueTrustSources(t.server.deps, { now: new Date(Date.now() + 7 * DAY), batch: 1000 });
    const [newest] = (await refreshes(sourceId, "?limit=1")).body.data;
    expect(newest).toMatchObject({
      trigger: "schedule",
      outcome: "ok",
      sequenceNumber: 4,
      services: 1,
      lastGoodCopyKept: false,
    });
  });

  it("400 for a cursor that is not one and a limit out of range", async () => {
    const cursor = await refreshes(sourceId, "?cursor=bm90LWEtY3Vyc29y");
    expect(cursor.status).toBe(400);
    expect(errorCode(cursor)).toBe("ValidationFailed");
    expect(cursor.body.error.details[0]).toMatchObject({ code: "InvalidCursor", target: "cursor" });
    expect((await refreshes(sourceId, "?limit=101")).status).toBe(400);
  });

  it("404 for an unknown id, another tenant's and another environment's trust source", async () => {
    const unknown = await refreshes("ts_unknown");
    expect(unknown.status).toBe(404);
    expect(errorCode(unknown)).toBe("NotFound");
    const other = await t.otherTenant();
    const foreign = await refreshes(sourceId, "", other.key);
    expect(foreign.status).toBe(404);
    expect(errorCode(foreign)).toBe("NotFound");
    const production = await t.key({ environment: "production" });
    expect((await refreshes(sourceId, "", production)).status).toBe(404);
  });

  it("401 without a key; 403 without trust-sources.read", async () => {
    expect((await refreshes(sourceId, "", null as unknown as string)).status).toBe(401);
    const noScope = await t.key({ scopes: ["webhooks.read"] });
    const r = await refreshes(sourceId, "", noScope);
    expect(r.status).toBe(403);
    expect(errorCode(r)).toBe("MissingScope");
  });
});

describe("TrustSources_ListRefreshes: a LoTL and retention", () => {
  it("a LoTL refresh whose pointed-to list fails is ok, naming the failed list", async () => {
    routes.set("/lotl-de.xml", nationalList(1, 2));
    const lotl = () =>
      signTrustedListXml(
        buildTrustedListXml({
          territory: "EU",
          listType: "http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUlistofthelists",
          pointers: [
            {
              location: `${listBase}/lotl-de.xml`,
              territory: "DE",
              signerCertificatesBase64: [deSigner.certificateBase64],
            },
          ],
        }),
        lotlSigner,
      );
    routes.set("/lotl.xml", lotl());
    const created = await call(t, "POST", BASE, {
      key: t.adminKey,
      body: { kind: "lotl", url: `${listBase}/lotl.xml`, signerCertificates: [lotlSigner.certificatePem] },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    routes.set("/lotl-de.xml", tampered(nationalList(2, 2)));
    expect((await refresh(id)).status).toBe(200);
    const [newest, first] = (await refreshes(id)).body.data;
    expect(first).toMatchObject({ trigger: "create", outcome: "ok", services: 2, failedLists: [] });
    expect(newest).toMatchObject({
      trigger: "manual",
      outcome: "ok",
      // The DE list's last good copy is kept beside its error.
      services: 2,
      lastGoodCopyKept: false,
      failedLists: [
        { location: `${listBase}/lotl-de.xml`, code: "BadSignature", message: expect.any(String) },
      ],
    });
  });

  it(`keeps the newest ${TRUST_SOURCE_REFRESHES_KEPT} attempts of a source`, async () => {
    routes.set("/retention.xml", nationalList(1, 1));
    const id = await createTsl("/retention.xml");
    routes.delete("/retention.xml");
    for (let i = 0; i < TRUST_SOURCE_REFRESHES_KEPT; i++) expect((await refresh(id)).status).toBe(422);
    const page1 = await refreshes(id, "?limit=100");
    expect(page1.body.data).toHaveLength(TRUST_SOURCE_REFRESHES_KEPT);
    expect(page1.body.nextCursor).toBeNull();
    // The create attempt, the oldest, is gone; every kept one is a failed fetch.
    expect(page1.body.data.every((e: { outcome: string }) => e.outcome === "failed")).toBe(true);
  }, 120_000);

  it("404 once the trust source is deleted", async () => {
    routes.set("/deleted.xml", nationalList(1, 1));
    const id = await createTsl("/deleted.xml");
    expect((await refreshes(id)).body.data).toHaveLength(1);
    expect((await call(t, "DELETE", `${BASE}/${id}`, { key: t.adminKey })).status).toBe(200);
    expect((await refreshes(id)).status).toBe(404);
  });
});
