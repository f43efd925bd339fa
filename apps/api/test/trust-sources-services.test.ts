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
 * TrustSources_ListServices (docs/api/trust-sources.md): the services of a trust source's last good copy,
 * here a signed test LoTL pointing to a DE list with a granted PID CA (with history), a withdrawn CA and
 * a granted service of another type, served from a loopback server.
 */

const BASE = "/management/trust-sources";
const DAY = 86_400_000;

let t: TestServer;
let lists: ServedLists | undefined;
let listBase: string;
let lotlSigner: TestSigner;
let deSigner: TestSigner;
let pidCa: TestSigner;
let oldCa: TestSigner;
let sourceId: string;

beforeAll(async () => {
  [t, lotlSigner, deSigner, pidCa, oldCa] = await Promise.all([
    startTestServer(),
    createTestSigner("CN=Services LoTL signer"),
    createTestSigner("CN=Services DE signer"),
    createTestSigner("CN=Services PID CA"),
    createTestSigner("CN=Services old CA"),
  ]);
  const routes = new Map<string, string>();
  lists = await serveListRoutes(routes);
  listBase = lists.base;
  const since = new Date(Date.now() - 10 * DAY);
  routes.set(
    "/de.xml",
    signTrustedListXml(
      buildTrustedListXml({
        territory: "DE",
        sequenceNumber: 3,
        providers: [
          {
            name: "Services TSP",
            services: [
              {
                type: SERVICE_TYPE.caQc,
                status: SERVICE_STATUS.granted,
                statusStartingTime: since,
                certificatesBase64: [pidCa.certificateBase64],
                name: "PID CA",
                history: [
                  {
                    type: SERVICE_TYPE.caQc,
                    status: SERVICE_STATUS.withdrawn,
                    statusStartingTime: new Date(Date.now() - 20 * DAY),
                    certificatesBase64: [pidCa.certificateBase64],
                  },
                ],
              },
              {
                type: SERVICE_TYPE.caQc,
                status: SERVICE_STATUS.withdrawn,
                statusStartingTime: since,
                certificatesBase64: [oldCa.certificateBase64],
                name: "Old CA",
              },
              {
                type: SERVICE_TYPE.pidIssuance,
                status: SERVICE_STATUS.granted,
                statusStartingTime: since,
                certificatesBase64: [pidCa.certificateBase64],
                name: "PID issuance",
              },
            ],
          },
        ],
      }),
      deSigner,
    ),
  );
  routes.set(
    "/lotl.xml",
    signTrustedListXml(
      buildTrustedListXml({
        territory: "EU",
        listType: "http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUlistofthelists",
        pointers: [
          {
            location: `${listBase}/de.xml`,
            territory: "DE",
            signerCertificatesBase64: [deSigner.certificateBase64],
          },
        ],
      }),
      lotlSigner,
    ),
  );
  const created = await call(t, "POST", BASE, {
    key: t.adminKey,
    body: { kind: "lotl", url: `${listBase}/lotl.xml`, signerCertificates: [lotlSigner.certificatePem] },
  });
  expect(created.status).toBe(201);
  sourceId = created.body.data.id;
}, 120_000);
afterAll(async () => {
  await Promise.all([t?.close(), lists?.close()]);
});

const services = (query = "", key = t.adminKey, id = sourceId) =>
  call(t, "GET", `${BASE}/${id}/services${query}`, { key });

describe("TrustSources_ListServices", () => {
  it("200: the DE list's services through the LoTL, with type, name, status, certificates, history and whether each is trusted now", async () => {
    const reader = await t.key({ scopes: ["trust-sources.read"] });
    const r = await services("", reader);
    expect(r.status).toBe(200);
    expect(r.body.nextCursor).toBeNull();
    expect(r.body.data).toHaveLength(3);
    const [pid, old, issuance] = r.body.data;
    expect(pid).toMatchObject({
      list: `${listBase}/de.xml`,
      territory: "DE",
      provider: "Services TSP",
      serviceType: SERVICE_TYPE.caQc,
      serviceName: "PID CA",
      status: SERVICE_STATUS.granted,
      trusted: true,
      history: [{ status: SERVICE_STATUS.withdrawn }],
    });
    expect(pid.certificates).toEqual([
      { subject: "CN=Services PID CA", notAfter: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    ]);
    expect(old).toMatchObject({ serviceName: "Old CA", status: SERVICE_STATUS.withdrawn, trusted: false });
    expect(issuance).toMatchObject({ serviceType: SERVICE_TYPE.pidIssuance, trusted: true });
  });

  it("200: serviceType keeps only services of that type; pages follow nextCursor to the end", async () => {
    const pids = await services(`?serviceType=${encodeURIComponent(SERVICE_TYPE.pidIssuance)}`);
    expect(pids.status).toBe(200);
    expect(pids.body.data.map((s: { serviceName: string }) => s.serviceName)).toEqual(["PID issuance"]);
    const first = await services("?limit=2");
    expect(first.body.data.map((s: { serviceName: string }) => s.serviceName)).toEqual(["PID CA", "Old CA"]);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await services(`?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((s: { serviceName: string }) => s.serviceName)).toEqual(["PID issuance"]);
    expect(second.body.nextCursor).toBeNull();
    expect((await services("?serviceType=urn%3Anone")).body.data).toEqual([]);
  });

  it("400 for a cursor that is not one and for a limit out of range", async () => {
    const cursor = await services("?cursor=bm90LWEtY3Vyc29y");
    expect(cursor.status).toBe(400);
    expect(errorCode(cursor)).toBe("ValidationFailed");
    expect(cursor.body.error.details[0]).toMatchObject({ code: "InvalidCursor", target: "cursor" });
    expect((await services("?limit=0")).status).toBe(400);
  });

  it("404 for an unknown id, another tenant's and another environment's trust source", async () => {
    const unknown = await services("", t.adminKey, "ts_unknown");
    expect(unknown.status).toBe(404);
    expect(errorCode(unknown)).toBe("NotFound");
    const other = await t.otherTenant();
    expect((await services("", other.key)).status).toBe(404);
    const production = await t.key({ environment: "production" });
    expect((await services("", production)).status).toBe(404);
  });

  it("401 without a key; 403 without trust-sources.read", async () => {
    expect((await services("", null as unknown as string)).status).toBe(401);
    const noScope = await t.key({ scopes: ["webhooks.read"] });
    const r = await services("", noScope);
    expect(r.status).toBe(403);
    expect(errorCode(r)).toBe("MissingScope");
  });

  it("404 once the trust source is deleted", async () => {
    const created = await call(t, "POST", BASE, {
      key: t.adminKey,
      body: { kind: "tsl", url: `${listBase}/de.xml`, signerCertificates: [deSigner.certificatePem] },
    });
    expect(created.status).toBe(201);
    expect((await services("", t.adminKey, created.body.data.id)).body.data).toHaveLength(3);
    expect((await call(t, "DELETE", `${BASE}/${created.body.data.id}`, { key: t.adminKey })).status).toBe(
      200,
    );
    expect((await services("", t.adminKey, created.body.data.id)).status).toBe(404);
  });
});
