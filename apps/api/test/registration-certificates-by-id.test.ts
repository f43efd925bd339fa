// Several registration certificates (WRPRC, ETSI TS 119 475) per environment (docs/api/relying-party-certificates.md):
// VerifierRegistrationCertificates_Add / _List / _GetById / _Remove beside the singular default-certificate
// operations, and verification policies naming theirs in `registrationCertificateIds`: the verification
// carries exactly those in verifier_info and is limited by them (409 NotRegistered). Over HTTP against a
// real server, on PGlite and (TEST_POSTGRES_URL) PostgreSQL; certificates from the test access CA and registrar.
import { createTestAccessCa, createTestRegistrar, type TestAccessCa, type TestRegistrar } from "@cred/oid4vc";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer } from "./fixtures";
import { importAccessCertificate } from "./fixtures/access-certificate";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

const OUR_ID = "VATFI-12345678";
const PLURAL = "/management/verifier-registration-certificates";
const SINGULAR = "/management/verifier-registration-certificate";

let t: TestServer;
let issuer: ActiveIssuer;
let accessCa: TestAccessCa;
let registrar: TestRegistrar;

/** A registration of ours for `claims` of the issuer's credential type, for relying party `name`. */
async function registration(name: string, claims: string[]) {
  return registrar.sign({
    name,
    sub: { id: [{ type: "VAT", identifier: OUR_ID }] },
    credentials: [
      { format: "dc+sd-jwt", meta: issuer.credentialType, claim: claims.map((c) => ({ path: [c] })) },
    ],
  });
}

async function add(jwt: string, key = t.adminKey) {
  return call(t, "POST", PLURAL, {
    key,
    body: { registrationCertificate: jwt, trustAnchorPem: registrar.rootPem },
  });
}

async function added(name: string, claims: string[]) {
  const jwt = await registration(name, claims);
  const r = await add(jwt);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { id: r.body.data.id as string, jwt };
}

async function policy(identifier: string, claims: string[], registrationCertificateIds?: string[]) {
  return call(t, "POST", "/management/verification-policies", {
    key: t.adminKey,
    body: {
      identifier,
      displayName: identifier,
      credentials: [
        {
          id: "employee",
          credentialTypes: [issuer.credentialType],
          trustedIssuers: [{ issuerId: issuer.issuerId }],
          requiredClaims: claims.map((c) => [c]),
        },
      ],
      ...(registrationCertificateIds ? { registrationCertificateIds } : {}),
    },
  });
}

const start = (policyIdentifier: string) =>
  call(t, "POST", "/v1.0/verifications", { key: t.adminKey, body: { policy: policyIdentifier } });

/** The verifier_info of the request object a wallet fetches for a new verification under `policy`. */
async function verifierInfoOf(policyIdentifier: string) {
  const r = await start(policyIdentifier);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const jwt = await (await fetch(r.body.data.requestUri)).text();
  return (decodeJwt(jwt) as Record<string, unknown>).verifier_info;
}

beforeAll(async () => {
  t = await startTestServer();
  // The CSR names a DNS name: the public host must be one.
  t.server.deps.config.publicBaseUrl = t.baseUrl.replace("127.0.0.1", "localhost");
  [accessCa, registrar] = await Promise.all([createTestAccessCa(), createTestRegistrar()]);
  issuer = await activeIssuer(t, t.adminKey);
  await importAccessCertificate(t, t.adminKey, accessCa, {
    organisationName: "Webshop Oy",
    organisationIdentifier: OUR_ID,
  });
}, 120_000);
afterAll(() => t?.close());

describe("VerifierRegistrationCertificates_Add / _List / _GetById / _Remove", () => {
  it("201 Add with an id (not the default); listed and read by id; the singular operations still see only the default", async () => {
    const jwt = await registration("Shop A", ["given_name"]);
    const r = await add(jwt);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data).toMatchObject({
      id: expect.stringMatching(/^vreg_/),
      default: false,
      registrationCertificate: jwt,
      name: "Shop A",
      subjectIds: [OUR_ID],
    });
    const id = r.body.data.id;
    expect((await call(t, "GET", SINGULAR, { key: t.adminKey })).status).toBe(404);
    const up = await call(t, "PUT", SINGULAR, {
      key: t.adminKey,
      body: {
        registrationCertificate: await registration("Default", ["given_name"]),
        trustAnchorPem: registrar.rootPem,
      },
    });
    expect(up.status).toBe(200);
    expect(up.body.data).toMatchObject({ default: true, name: "Default" });
    const reader = await t.key({ scopes: ["verification-policies.read"] });
    const listed = await call(t, "GET", `${PLURAL}?limit=100`, { key: reader });
    expect(listed.status).toBe(200);
    const names = listed.body.data.map((c: { id: string; default: boolean }) => [c.id, c.default]);
    expect(names).toContainEqual([id, false]);
    expect(names).toContainEqual([up.body.data.id, true]);
    const got = await call(t, "GET", `${PLURAL}/${id}`, { key: reader });
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(r.body.data);
    // Deleting the default leaves the added one.
    expect((await call(t, "DELETE", SINGULAR, { key: t.adminKey })).body.data.id).toBe(up.body.data.id);
    expect((await call(t, "GET", `${PLURAL}/${id}`, { key: reader })).status).toBe(200);
    const removed = await call(t, "DELETE", `${PLURAL}/${id}`, { key: t.adminKey });
    expect(removed.status).toBe(200);
    expect(removed.body.data.id).toBe(id);
    expect((await call(t, "GET", `${PLURAL}/${id}`, { key: reader })).status).toBe(404);
  });

  it("accepts Idempotency-Key: a repeat is answered the same certificate (same id) and adds none; another body → 409; without it each call adds one", async () => {
    const jwt = await registration("Shop once", ["given_name"]);
    const body = { registrationCertificate: jwt, trustAnchorPem: registrar.rootPem };
    const headers = { "idempotency-key": "vreg-add-once" };
    const first = await call(t, "POST", PLURAL, { key: t.adminKey, body, headers });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const again = await call(t, "POST", PLURAL, { key: t.adminKey, body, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const stored = async () =>
      (await call(t, "GET", `${PLURAL}?limit=100`, { key: t.adminKey })).body.data
        .filter((c: { registrationCertificate: string }) => c.registrationCertificate === jwt)
        .map((c: { id: string }) => c.id);
    expect(await stored()).toEqual([first.body.data.id]);

    const reused = await call(t, "POST", PLURAL, {
      key: t.adminKey,
      body: { ...body, registrationCertificate: await registration("Shop twice", ["given_name"]) },
      headers,
    });
    expect(reused.status).toBe(409);
    expect(errorCode(reused)).toBe("IdempotencyKeyReused");

    const plain = [await add(jwt), await add(jwt)];
    expect(plain.map((r) => r.status)).toEqual([201, 201]);
    expect(plain.map((r) => r.headers.get("idempotent-replayed"))).toEqual([null, null]);
    expect(new Set(await stored()).size).toBe(3);
  });

  it("400 for a certificate that does not verify or is not a JWT; 400 for a limit out of range", async () => {
    const other = await createTestRegistrar();
    const bad = await call(t, "POST", PLURAL, {
      key: t.adminKey,
      body: {
        registrationCertificate: await registration("X", ["given_name"]),
        trustAnchorPem: other.rootPem,
      },
    });
    expect(bad.status).toBe(400);
    expect(errorCode(bad)).toBe("InvalidCertificate");
    const notJwt = await add("not a jwt");
    expect(notJwt.status).toBe(400);
    expect((await call(t, "GET", `${PLURAL}?limit=0`, { key: t.adminKey })).status).toBe(400);
  });

  it("404 for an unknown id and for another tenant's or environment's; 409 Add where no access certificate is imported", async () => {
    const { id } = await added("Shop B", ["given_name"]);
    expect((await call(t, "GET", `${PLURAL}/vreg_unknown`, { key: t.adminKey })).status).toBe(404);
    expect((await call(t, "DELETE", `${PLURAL}/vreg_unknown`, { key: t.adminKey })).status).toBe(404);
    const other = await t.otherTenant();
    const production = await t.key({ environment: "production" });
    for (const key of [other.key, production]) {
      const foreign = await call(t, "GET", `${PLURAL}/${id}`, { key });
      expect(foreign.status).toBe(404);
      expect(errorCode(foreign)).toBe("NotFound");
      expect((await call(t, "DELETE", `${PLURAL}/${id}`, { key })).status).toBe(404);
      expect((await call(t, "GET", PLURAL, { key })).body.data).toEqual([]);
      const theirs = await add(await registration("Theirs", ["given_name"]), key);
      expect(theirs.status).toBe(409);
      expect(errorCode(theirs)).toBe("InvalidState");
    }
    expect((await call(t, "GET", `${PLURAL}/${id}`, { key: t.adminKey })).status).toBe(200);
  });

  it("401 without a key; 403 without the scope (read: verification-policies.read, write: .manage)", async () => {
    const { id } = await added("Shop C", ["given_name"]);
    expect((await call(t, "GET", PLURAL, { key: null as unknown as string })).status).toBe(401);
    const reader = await t.key({ scopes: ["verification-policies.read"] });
    const stranger = await t.key({ scopes: ["webhooks.read"] });
    const addByReader = await add(await registration("R", ["given_name"]), reader);
    expect(addByReader.status).toBe(403);
    expect(errorCode(addByReader)).toBe("MissingScope");
    expect((await call(t, "DELETE", `${PLURAL}/${id}`, { key: reader })).status).toBe(403);
    expect((await call(t, "GET", PLURAL, { key: stranger })).status).toBe(403);
    expect((await call(t, "GET", `${PLURAL}/${id}`, { key: stranger })).status).toBe(403);
  });
});

describe("verification policies naming registration certificates", () => {
  it("400 for a policy naming one that does not exist (here)", async () => {
    const other = await t.otherTenant();
    const theirs = await call(t, "GET", PLURAL, { key: other.key });
    expect(theirs.body.data).toEqual([]);
    const r = await policy("names-unknown", ["given_name"], ["vreg_unknown"]);
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("ValidationFailed");
    expect(r.body.error.details).toContainEqual(
      expect.objectContaining({
        code: "UnknownRegistrationCertificate",
        target: "registrationCertificateIds.0",
      }),
    );
  });

  it("the verification carries the policy's certificates (not the default) and is limited by them; one covering each credential suffices", async () => {
    const defaultJwt = await registration("Default", ["given_name", "family_name"]);
    expect(
      (
        await call(t, "PUT", SINGULAR, {
          key: t.adminKey,
          body: { registrationCertificate: defaultJwt, trustAnchorPem: registrar.rootPem },
        })
      ).status,
    ).toBe(200);
    const givenOnly = await added("Shop given", ["given_name"]);
    const both = await added("Shop both", ["given_name", "family_name"]);

    // A policy naming none: the default, as before.
    expect((await policy("names-none", ["family_name"])).status).toBe(201);
    expect(await verifierInfoOf("names-none")).toEqual([{ format: "registration_cert", data: defaultJwt }]);

    // Naming one that registers only given_name: family_name is refused although the default registers it.
    const narrow = await policy("names-narrow", ["family_name"], [givenOnly.id]);
    expect(narrow.status, JSON.stringify(narrow.body)).toBe(201);
    expect(narrow.body.data.rules.registrationCertificateIds).toEqual([givenOnly.id]);
    const refused = await start("names-narrow");
    expect(refused.status).toBe(409);
    expect(errorCode(refused)).toBe("NotRegistered");
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({
        code: "UnregisteredClaim",
        target: 'policy.credentials[employee].claims[["family_name"]]',
      }),
    ]);
    expect((await policy("names-narrow-given", ["given_name"], [givenOnly.id])).status).toBe(201);
    expect(await verifierInfoOf("names-narrow-given")).toEqual([
      { format: "registration_cert", data: givenOnly.jwt },
    ]);

    // Naming two: one covering the credential is enough; both travel in verifier_info, in the policy's order.
    expect((await policy("names-two", ["family_name"], [givenOnly.id, both.id])).status).toBe(201);
    expect(await verifierInfoOf("names-two")).toEqual([
      { format: "registration_cert", data: givenOnly.jwt },
      { format: "registration_cert", data: both.jwt },
    ]);

    // Removing a named certificate: verifications under the policy are refused with the reason.
    expect((await call(t, "DELETE", `${PLURAL}/${both.id}`, { key: t.adminKey })).status).toBe(200);
    const removed = await start("names-two");
    expect(removed.status).toBe(409);
    expect(errorCode(removed)).toBe("NotRegistered");
    expect(removed.body.error.details).toEqual([
      expect.objectContaining({
        code: "RegistrationCertificateRemoved",
        target: "policy.registrationCertificateIds[1]",
      }),
    ]);
  });
});
