// Relying parties a tenant acts for as an intermediary (docs/api/relying-party-certificates.md,
// "Intermediaries"): RelyingParties_Create / _List / _Get / _Update / _Delete, their registration
// certificates (RelyingParties_AddRegistrationCertificate / _ListRegistrationCertificates: `sub` names the
// party, `act.sub` this intermediary), policies naming one in `relyingPartyId`, and verifications that
// carry its registrations in verifier_info and are recorded as its. Over HTTP against a real server, on
// PGlite and (TEST_POSTGRES_URL) PostgreSQL; certificates from the test access CA and registrar.
import { createTestAccessCa, createTestRegistrar, type TestAccessCa, type TestRegistrar } from "@cred/oid4vc";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer } from "./fixtures";
import { importAccessCertificate } from "./fixtures/access-certificate";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

const INTERMEDIARY_ID = "VATFI-12345678"; // the tenant's access certificate
const BASE = "/management/relying-parties";
const REGISTRATIONS = "/management/verifier-registration-certificates";

let t: TestServer;
let issuer: ActiveIssuer;
let accessCa: TestAccessCa;
let registrar: TestRegistrar;
let n = 0;

/** A fresh identifier, so tests do not collide on the one-party-per-identifier rule. */
const freshId = () => `LEIXG-TEST${Date.now().toString(36).toUpperCase()}${++n}`;

async function createParty(name: string, identifiers = [freshId()], key = t.adminKey) {
  return call(t, "POST", BASE, { key, body: { name, identifiers, country: "FI" } });
}

async function party(name: string) {
  const r = await createParty(name);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as { id: string; identifiers: string[]; name: string };
}

/** A registration of relying party `subject` for `claims`, naming `act` as its intermediary (none: null). */
function registration(
  subject: string,
  claims: string[],
  act: string | null = INTERMEDIARY_ID,
  extra: Record<string, unknown> = {},
) {
  return registrar.sign({
    name: `RP ${subject}`,
    sub: { id: [{ type: "LEI", identifier: subject }] },
    ...(act ? { act: { sub: { id: act, name: "Intermediary Oy" } } } : {}),
    credentials: [
      { format: "dc+sd-jwt", meta: issuer.credentialType, claim: claims.map((c) => ({ path: [c] })) },
    ],
    ...extra,
  });
}

const addFor = async (relyingPartyId: string, jwt: string, key = t.adminKey) =>
  call(t, "POST", `${BASE}/${relyingPartyId}/registration-certificates`, {
    key,
    body: { registrationCertificate: jwt, trustAnchorPem: registrar.rootPem },
  });

async function addedFor(p: { id: string; identifiers: string[] }, claims: string[]) {
  const jwt = await registration(p.identifiers[0]!, claims);
  const r = await addFor(p.id, jwt);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { id: r.body.data.id as string, jwt };
}

function policy(
  identifier: string,
  claims: string[],
  extra: { relyingPartyId?: string; registrationCertificateIds?: string[] } = {},
) {
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
      ...extra,
    },
  });
}

const start = (policyIdentifier: string) =>
  call(t, "POST", "/v1.0/verifications", { key: t.adminKey, body: { policy: policyIdentifier } });

beforeAll(async () => {
  t = await startTestServer();
  // The CSR names a DNS name: the public host must be one.
  t.server.deps.config.publicBaseUrl = t.baseUrl.replace("127.0.0.1", "localhost");
  [accessCa, registrar] = await Promise.all([createTestAccessCa(), createTestRegistrar()]);
  issuer = await activeIssuer(t, t.adminKey);
  await importAccessCertificate(t, t.adminKey, accessCa, {
    organisationName: "Intermediary Oy",
    organisationIdentifier: INTERMEDIARY_ID,
  });
}, 120_000);
afterAll(() => t?.close());

describe("RelyingParties_Create / _List / _Get / _Update / _Delete", () => {
  it("201 create, 200 get and list, 200 merge patch (null clears), 200 delete, then 404", async () => {
    const identifier = freshId();
    const created = await call(t, "POST", BASE, {
      key: t.adminKey,
      body: {
        name: "Webshop",
        legalName: "Webshop Holding Company Ltd",
        identifiers: [identifier],
        country: "FI",
        infoUri: "https://webshop.example.com",
        privacyPolicyUri: "https://webshop.example.com/privacy",
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({
      id: expect.stringMatching(/^rp_/),
      name: "Webshop",
      legalName: "Webshop Holding Company Ltd",
      identifiers: [identifier],
      country: "FI",
      infoUri: "https://webshop.example.com",
      privacyPolicyUri: "https://webshop.example.com/privacy",
      registryUri: null,
    });
    const id = created.body.data.id;
    const reader = await t.key({ scopes: ["verification-policies.read"] });
    const got = await call(t, "GET", `${BASE}/${id}`, { key: reader });
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(created.body.data);
    const listed = await call(t, "GET", `${BASE}?limit=100`, { key: reader });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((p: { id: string }) => p.id)).toContain(id);
    expect(listed.body).toHaveProperty("nextCursor");

    const patched = await call(t, "PATCH", `${BASE}/${id}`, {
      key: t.adminKey,
      body: { name: "Webshop EU", legalName: null, registryUri: "https://registry.example.eu" },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data).toMatchObject({
      name: "Webshop EU",
      legalName: null,
      registryUri: "https://registry.example.eu",
      infoUri: "https://webshop.example.com",
      identifiers: [identifier],
    });

    const deleted = await call(t, "DELETE", `${BASE}/${id}`, { key: t.adminKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data.name).toBe("Webshop EU");
    const gone = await call(t, "GET", `${BASE}/${id}`, { key: reader });
    expect(gone.status).toBe(404);
    expect(errorCode(gone)).toBe("NotFound");
  });

  it("400 for bad input; 409 for an identifier another relying party has; 404 for unknown ids", async () => {
    for (const body of [
      { name: "No ids", identifiers: [] },
      { name: "Bad country", identifiers: [freshId()], country: "fin" },
      { name: "Bad uri", identifiers: [freshId()], infoUri: "ftp://x.example" },
      { name: "Twice", identifiers: ["LEIXG-A", "LEIXG-A"] },
      { name: "Unknown", identifiers: [freshId()], colour: "blue" },
      { identifiers: [freshId()] },
    ]) {
      const r = await call(t, "POST", BASE, { key: t.adminKey, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(errorCode(r)).toBe("ValidationFailed");
    }
    const a = await party("Taken");
    const dup = await createParty("Copy", [freshId(), a.identifiers[0]!]);
    expect(dup.status).toBe(409);
    expect(errorCode(dup)).toBe("AlreadyExists");
    expect(dup.body.error.details).toEqual([
      expect.objectContaining({ code: "Duplicate", target: "identifiers.1" }),
    ]);
    const b = await party("Other");
    const patchDup = await call(t, "PATCH", `${BASE}/${b.id}`, {
      key: t.adminKey,
      body: { identifiers: a.identifiers },
    });
    expect(patchDup.status).toBe(409);
    expect(errorCode(patchDup)).toBe("AlreadyExists");
    const badPatch = await call(t, "PATCH", `${BASE}/${b.id}`, { key: t.adminKey, body: { name: "" } });
    expect(badPatch.status).toBe(400);
    for (const [method, path] of [
      ["GET", `${BASE}/rp_unknown`],
      ["PATCH", `${BASE}/rp_unknown`],
      ["DELETE", `${BASE}/rp_unknown`],
      ["GET", `${BASE}/rp_unknown/registration-certificates`],
    ] as const) {
      const r = await call(t, method, path, {
        key: t.adminKey,
        body: method === "PATCH" ? { name: "x" } : undefined,
      });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(errorCode(r)).toBe("NotFound");
    }
  });

  it("404 for another tenant's or environment's relying party, which lists none of ours", async () => {
    const ours = await party("Ours");
    const { id: certificateId } = await addedFor(ours, ["given_name"]);
    const other = await t.otherTenant();
    const production = await t.key({ environment: "production" });
    for (const key of [other.key, production]) {
      for (const [method, path] of [
        ["GET", `${BASE}/${ours.id}`],
        ["PATCH", `${BASE}/${ours.id}`],
        ["DELETE", `${BASE}/${ours.id}`],
        ["GET", `${BASE}/${ours.id}/registration-certificates`],
        ["POST", `${BASE}/${ours.id}/registration-certificates`],
      ] as const) {
        const body =
          method === "PATCH"
            ? { name: "Stolen" }
            : method === "POST"
              ? {
                  registrationCertificate: await registration(ours.identifiers[0]!, ["given_name"]),
                  trustAnchorPem: registrar.rootPem,
                }
              : undefined;
        const r = await call(t, method, path, { key, body });
        expect(r.status, `${method} ${path}`).toBe(404);
        expect(errorCode(r)).toBe("NotFound");
      }
      expect((await call(t, "GET", `${BASE}?limit=100`, { key })).body.data).toEqual([]);
      // Identifiers are per environment: theirs may repeat ours.
      expect((await createParty("Same ids elsewhere", ours.identifiers, key)).status).toBe(201);
    }
    const still = await call(t, "GET", `${BASE}/${ours.id}`, { key: t.adminKey });
    expect(still.body.data.name).toBe("Ours");
    expect((await call(t, "GET", `${REGISTRATIONS}/${certificateId}`, { key: t.adminKey })).status).toBe(200);
  });

  it("401 without a key; 403 without the scope (read: verification-policies.read, write: .manage)", async () => {
    const p = await party("Scoped");
    expect((await call(t, "GET", BASE, { key: null as unknown as string })).status).toBe(401);
    const reader = await t.key({ scopes: ["verification-policies.read"] });
    const stranger = await t.key({ scopes: ["webhooks.read"] });
    for (const [method, path, key] of [
      ["POST", BASE, reader],
      ["PATCH", `${BASE}/${p.id}`, reader],
      ["DELETE", `${BASE}/${p.id}`, reader],
      ["POST", `${BASE}/${p.id}/registration-certificates`, reader],
      ["GET", BASE, stranger],
      ["GET", `${BASE}/${p.id}`, stranger],
      ["GET", `${BASE}/${p.id}/registration-certificates`, stranger],
    ] as const) {
      const r = await call(t, method, path, {
        key,
        body: method === "GET" || method === "DELETE" ? undefined : { name: "x", identifiers: [freshId()] },
      });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(errorCode(r)).toBe("MissingScope");
    }
  });
});

describe("RelyingParties_AddRegistrationCertificate / _ListRegistrationCertificates", () => {
  it("201 for the party's registration naming this intermediary; listed under it and by id, with relyingPartyId", async () => {
    const p = await party("Shop A");
    const jwt = await registration(p.identifiers[0]!, ["given_name"], INTERMEDIARY_ID, {
      exp: Math.floor(Date.now() / 1000) + 90 * 86_400,
    });
    const r = await addFor(p.id, jwt);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data).toMatchObject({
      id: expect.stringMatching(/^vreg_/),
      default: false,
      relyingPartyId: p.id,
      subjectIds: p.identifiers,
      intermediary: { ids: [INTERMEDIARY_ID], name: "Intermediary Oy" },
      expiresAt: expect.any(String),
    });
    const listed = await call(t, "GET", `${BASE}/${p.id}/registration-certificates`, { key: t.adminKey });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([r.body.data]);
    const byId = await call(t, "GET", `${REGISTRATIONS}/${r.body.data.id}`, { key: t.adminKey });
    expect(byId.body.data).toEqual(r.body.data);
    // Audited as the registration certificate it made, not as a relying party with that id.
    const audit = await call(
      t,
      "GET",
      "/management/audit-events?operation=RelyingParties_AddRegistrationCertificate",
      { key: t.adminKey },
    );
    expect(audit.status).toBe(200);
    expect(audit.body.data).toContainEqual(
      expect.objectContaining({
        target: { type: "verifierRegistrationCertificate", id: r.body.data.id },
        outcome: "succeeded",
      }),
    );
  });

  it("400 InvalidCertificate, nothing written, for another party's registration or one not naming this intermediary", async () => {
    const p = await party("Shop refused");
    const cases = [
      { jwt: await registration(freshId(), ["given_name"]), codes: ["RelyingPartyMismatch"] },
      { jwt: await registration(p.identifiers[0]!, ["given_name"], null), codes: ["SubjectMismatch"] },
      // The tenant's own registration (sub = the intermediary itself) is not the party's.
      {
        jwt: await registration(INTERMEDIARY_ID, ["given_name"], null),
        codes: ["RelyingPartyMismatch", "NotIntermediated"],
      },
      {
        jwt: await registration(p.identifiers[0]!, ["given_name"], "VATFI-00000000"),
        codes: ["SubjectMismatch"],
      },
    ];
    for (const { jwt, codes } of cases) {
      const r = await addFor(p.id, jwt);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(errorCode(r)).toBe("InvalidCertificate");
      expect(r.body.error.details.map((d: { code: string }) => d.code)).toEqual(codes);
    }
    const other = await createTestRegistrar();
    const untrusted = await call(t, "POST", `${BASE}/${p.id}/registration-certificates`, {
      key: t.adminKey,
      body: {
        registrationCertificate: await registration(p.identifiers[0]!, ["given_name"]),
        trustAnchorPem: other.rootPem,
      },
    });
    expect(untrusted.status).toBe(400);
    const listed = await call(t, "GET", `${BASE}/${p.id}/registration-certificates`, { key: t.adminKey });
    expect(listed.body.data).toEqual([]);
  });

  it("accepts Idempotency-Key: a repeat is answered the same certificate (same id) and adds none; another body or party → 409; without it each call adds one", async () => {
    const p = await party("Shop once");
    const jwt = await registration(p.identifiers[0]!, ["given_name"]);
    const body = { registrationCertificate: jwt, trustAnchorPem: registrar.rootPem };
    const path = `${BASE}/${p.id}/registration-certificates`;
    const headers = { "idempotency-key": `rp-registration-${p.id}` };
    const first = await call(t, "POST", path, { key: t.adminKey, body, headers });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const again = await call(t, "POST", path, { key: t.adminKey, body, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const listed = async () =>
      (await call(t, "GET", path, { key: t.adminKey })).body.data.map((c: { id: string }) => c.id);
    expect(await listed()).toEqual([first.body.data.id]);

    const otherBody = {
      ...body,
      registrationCertificate: await registration(p.identifiers[0]!, ["family_name"]),
    };
    const other = await party("Shop other");
    for (const [target, payload] of [
      [path, otherBody],
      [`${BASE}/${other.id}/registration-certificates`, body],
    ] as const) {
      const reused = await call(t, "POST", target, { key: t.adminKey, body: payload, headers });
      expect(reused.status).toBe(409);
      expect(errorCode(reused)).toBe("IdempotencyKeyReused");
    }
    expect(await listed()).toEqual([first.body.data.id]);

    const plain = [await addFor(p.id, jwt), await addFor(p.id, jwt)];
    expect(plain.map((r) => r.status)).toEqual([201, 201]);
    expect(plain.map((r) => r.headers.get("idempotent-replayed"))).toEqual([null, null]);
    expect(new Set(await listed()).size).toBe(3);
  });

  it("409 InvalidState on update when the new identifiers no longer name its registrations", async () => {
    const p = await party("Renamed");
    await addedFor(p, ["given_name"]);
    const r = await call(t, "PATCH", `${BASE}/${p.id}`, {
      key: t.adminKey,
      body: { identifiers: [freshId()] },
    });
    expect(r.status).toBe(409);
    expect(errorCode(r)).toBe("InvalidState");
    expect(r.body.error.details).toEqual([
      expect.objectContaining({ code: "RegistrationCertificateMismatch" }),
    ]);
    const kept = await call(t, "PATCH", `${BASE}/${p.id}`, {
      key: t.adminKey,
      body: { identifiers: [p.identifiers[0]!, freshId()] },
    });
    expect(kept.status).toBe(200);
  });
});

describe("policies and verifications for a relying party", () => {
  it("400 for an unknown relying party, and for a registration certificate that is not the policy's party's", async () => {
    const a = await party("Policy A");
    const b = await party("Policy B");
    const ofB = await addedFor(b, ["given_name"]);
    const own = await call(t, "POST", REGISTRATIONS, {
      key: t.adminKey,
      body: {
        registrationCertificate: await registration(INTERMEDIARY_ID, ["given_name"], null),
        trustAnchorPem: registrar.rootPem,
      },
    });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    expect(own.body.data.relyingPartyId).toBeNull();

    const unknown = await policy("rp-unknown", ["given_name"], { relyingPartyId: "rp_unknown" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toContainEqual(
      expect.objectContaining({ code: "UnknownRelyingParty", target: "relyingPartyId" }),
    );
    const refusedPolicies: [string, { relyingPartyId?: string; registrationCertificateIds: string[] }][] = [
      ["rp-a-names-b", { relyingPartyId: a.id, registrationCertificateIds: [ofB.id] }],
      ["rp-a-names-own", { relyingPartyId: a.id, registrationCertificateIds: [own.body.data.id] }],
      ["no-rp-names-b", { registrationCertificateIds: [ofB.id] }],
    ];
    for (const [identifier, extra] of refusedPolicies) {
      const r = await policy(identifier, ["given_name"], extra);
      expect(r.status, identifier).toBe(400);
      expect(errorCode(r)).toBe("ValidationFailed");
      expect(r.body.error.details).toEqual([
        expect.objectContaining({
          code: "RegistrationCertificateOfAnotherRelyingParty",
          target: "registrationCertificateIds.0",
        }),
      ]);
    }
    // The tenant's own path keeps working.
    const ownPolicy = await policy("no-rp-names-own", ["given_name"], {
      registrationCertificateIds: [own.body.data.id],
    });
    expect(ownPolicy.status, JSON.stringify(ownPolicy.body)).toBe(201);
    const session = await start("no-rp-names-own");
    expect(session.status).toBe(201);
    expect(session.body.data).not.toHaveProperty("relyingPartyId");
  });

  it("a verification under A's policy carries A's registration in verifier_info, is limited by it, and is recorded as A's", async () => {
    const a = await party("Verifying A");
    const b = await party("Verifying B");
    const ofA = await addedFor(a, ["given_name"]);
    const ofA2 = await addedFor(a, ["family_name"]);
    await addedFor(b, ["given_name", "family_name", "birthdate"]);

    const named = await policy("rp-a-named", ["given_name"], {
      relyingPartyId: a.id,
      registrationCertificateIds: [ofA.id],
    });
    expect(named.status, JSON.stringify(named.body)).toBe(201);
    expect(named.body.data.rules).toMatchObject({
      relyingPartyId: a.id,
      registrationCertificateIds: [ofA.id],
    });
    const created = await start("rp-a-named");
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.relyingPartyId).toBe(a.id);
    const requestObject = decodeJwt(await (await fetch(created.body.data.requestUri)).text());
    expect(requestObject.verifier_info).toEqual([{ format: "registration_cert", data: ofA.jwt }]);
    for (const path of [
      `/v1.0/verifications/${created.body.data.id}`,
      `/v1.0/verification-sessions/${created.body.data.id}`,
    ]) {
      const read = await call(t, "GET", path, { key: t.adminKey });
      expect(read.status, path).toBe(200);
      expect(read.body.data.relyingPartyId, path).toBe(a.id);
    }

    // Naming none of its certificates: all of A's travel (and none of B's).
    expect((await policy("rp-a-all", ["family_name"], { relyingPartyId: a.id })).status).toBe(201);
    const all = await start("rp-a-all");
    expect(all.status, JSON.stringify(all.body)).toBe(201);
    expect(decodeJwt(await (await fetch(all.body.data.requestUri)).text()).verifier_info).toEqual([
      { format: "registration_cert", data: ofA.jwt },
      { format: "registration_cert", data: ofA2.jwt },
    ]);

    // A registers no birthdate (B does): A's verification may not ask for it.
    expect((await policy("rp-a-birthdate", ["birthdate"], { relyingPartyId: a.id })).status).toBe(201);
    const refused = await start("rp-a-birthdate");
    expect(refused.status).toBe(409);
    expect(errorCode(refused)).toBe("NotRegistered");
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({
        code: "UnregisteredClaim",
        target: 'policy.credentials[employee].claims[["birthdate"]]',
      }),
    ]);
  });

  it("409 NotRegistered for a relying party without registration certificates", async () => {
    const bare = await party("Unregistered");
    expect((await policy("rp-bare", ["given_name"], { relyingPartyId: bare.id })).status).toBe(201);
    const r = await start("rp-bare");
    expect(r.status).toBe(409);
    expect(errorCode(r)).toBe("NotRegistered");
    expect(r.body.error.details).toEqual([
      expect.objectContaining({ code: "NoRegistrationCertificate", target: "policy.relyingPartyId" }),
    ]);
  });

  it("409 deleting a relying party a policy names; once no policy does, it goes with its registrations", async () => {
    const p = await party("In use");
    const cert = await addedFor(p, ["given_name"]);
    const created = await policy("rp-in-use", ["given_name"], { relyingPartyId: p.id });
    expect(created.status).toBe(201);
    const refused = await call(t, "DELETE", `${BASE}/${p.id}`, { key: t.adminKey });
    expect(refused.status).toBe(409);
    expect(errorCode(refused)).toBe("InvalidState");
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({ code: "RelyingPartyInUse", message: expect.stringContaining("rp-in-use") }),
    ]);
    expect((await call(t, "GET", `${BASE}/${p.id}`, { key: t.adminKey })).status).toBe(200);

    const version = await call(t, "POST", "/management/verification-policies/rp-in-use/versions", {
      key: t.adminKey,
      body: {
        displayName: "No longer for the party",
        credentials: created.body.data.rules.credentials,
      },
    });
    expect(version.status, JSON.stringify(version.body)).toBe(201);
    const deleted = await call(t, "DELETE", `${BASE}/${p.id}`, { key: t.adminKey });
    expect(deleted.status).toBe(200);
    expect((await call(t, "GET", `${REGISTRATIONS}/${cert.id}`, { key: t.adminKey })).status).toBe(404);
  });

  it("readiness lists every registration certificate with its expiry, the relying party's too", async () => {
    const p = await party("Readiness");
    const exp = Math.floor(Date.now() / 1000) + 10 * 86_400;
    const jwt = await registration(p.identifiers[0]!, ["given_name"], INTERMEDIARY_ID, { exp });
    const r = await addFor(p.id, jwt);
    expect(r.status).toBe(201);
    const readiness = await call(t, "GET", `/management/issuers/${issuer.issuerId}/readiness`, {
      key: t.adminKey,
    });
    expect(readiness.status).toBe(200);
    expect(readiness.body.data.relyingPartyCertificates).toContainEqual(
      expect.objectContaining({
        id: "registration-certificate",
        registrationCertificateId: r.body.data.id,
        relyingPartyId: p.id,
        title: "Registration certificate of relying party Readiness",
        status: "expiring",
        expiresAt: new Date(exp * 1000).toISOString(),
      }),
    );
  });
});
