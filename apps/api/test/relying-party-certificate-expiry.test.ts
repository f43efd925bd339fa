// The readiness checklist shows the expiry of the environment's relying-party certificates (access
// certificate WRPAC, registration certificate WRPRC): valid, expiring within 30 days (a warning), expired
// (a failure) or absent. Over HTTP against a real server; certificates from the test access CA and registrar.
import { createTestAccessCa, createTestRegistrar, type TestAccessCa, type TestRegistrar } from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer } from "./fixtures";
import { importAccessCertificate } from "./fixtures/access-certificate";
import { call, startTestServer, type TestServer } from "./harness";

const OUR_ID = "VATFI-12345678";
const DAY_S = 86_400;

let t: TestServer;
let issuer: ActiveIssuer;
let accessCa: TestAccessCa;
let registrar: TestRegistrar;

async function readiness() {
  const r = await call(t, "GET", `/management/issuers/${issuer.issuerId}/readiness`, { key: t.adminKey });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data as {
    ready: boolean;
    relyingPartyCertificates: { id: string; status: string; expiresAt: string | null; detail: string }[];
  };
}

const entry = async (id: string) => (await readiness()).relyingPartyCertificates.find((c) => c.id === id)!;

/** Imports the certificate the test access CA issues for a new signing request; its notAfter. */
const importWebshopCertificate = async (validity: { validityDays?: number; notBefore?: Date }) =>
  (
    await importAccessCertificate(
      t,
      t.adminKey,
      accessCa,
      { organisationName: "Webshop Oy", organisationIdentifier: OUR_ID },
      validity,
    )
  ).notAfter;

async function uploadRegistration(exp: number) {
  const r = await call(t, "PUT", "/management/verifier-registration-certificate", {
    key: t.adminKey,
    body: {
      registrationCertificate: await registrar.sign({
        name: "Webshop",
        sub: { id: [{ type: "VAT", identifier: OUR_ID }] },
        credentials: [
          { format: "dc+sd-jwt", meta: issuer.credentialType, claim: [{ path: ["given_name"] }] },
        ],
        exp,
      }),
      trustAnchorPem: registrar.rootPem,
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

beforeAll(async () => {
  t = await startTestServer();
  t.server.deps.config.publicBaseUrl = t.baseUrl.replace("127.0.0.1", "localhost");
  issuer = await activeIssuer(t, t.adminKey);
  accessCa = await createTestAccessCa();
  registrar = await createTestRegistrar();
});
afterAll(() => t?.close());

describe("Issuers_GetReadiness: relying-party certificate expiry", () => {
  it("both absent on a new environment; the checklist items and `ready` are not affected", async () => {
    const r = await readiness();
    expect(r.relyingPartyCertificates.map((c) => [c.id, c.status, c.expiresAt])).toEqual([
      ["access-certificate", "absent", null],
      ["registration-certificate", "absent", null],
    ]);
    expect(r.ready).toBe(true);
  });

  it("an access certificate expiring in 10 days is `expiring`; a registration valid for 100 days is `valid`", async () => {
    const notAfter = await importWebshopCertificate({ validityDays: 10 });
    await uploadRegistration(Math.floor(Date.now() / 1000) + 100 * DAY_S);
    const access = await entry("access-certificate");
    expect(access).toMatchObject({ status: "expiring", expiresAt: notAfter });
    expect(access.detail).toContain(OUR_ID);
    expect(access.detail).toContain("import the renewed certificate");
    expect(await entry("registration-certificate")).toMatchObject({ status: "valid" });
    expect((await readiness()).ready).toBe(true);
  });

  it("an access certificate valid for a year is `valid`; a registration expiring in 20 days is `expiring`", async () => {
    await importWebshopCertificate({ validityDays: 365 });
    const exp = Math.floor(Date.now() / 1000) + 20 * DAY_S;
    await uploadRegistration(exp);
    expect(await entry("access-certificate")).toMatchObject({ status: "valid" });
    expect(await entry("registration-certificate")).toMatchObject({
      status: "expiring",
      expiresAt: new Date(exp * 1000).toISOString(),
    });
  });

  it("past their end both are `expired`, with what to do", async () => {
    // Valid at installation, over a few seconds later (installation refuses what has already expired).
    await importWebshopCertificate({ notBefore: new Date(Date.now() - 60_000), validityDays: 64 / DAY_S });
    await uploadRegistration(Math.floor(Date.now() / 1000) + 3);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const access = await entry("access-certificate");
    expect(access.status).toBe("expired");
    expect(access.detail).toContain("expired on");
    const registration = await entry("registration-certificate");
    expect(registration.status).toBe("expired");
    expect(registration.detail).toContain("409 NotRegistered");
  }, 30_000);
});
