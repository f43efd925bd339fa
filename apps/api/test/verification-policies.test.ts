import { DomainError, type Environment, newId } from "@cred/core";
import { getActivePolicyForVerification } from "@cred/core/testing";
import { issueTestCertificate, testParty } from "@cred/oid4vc/test-ca";
import { x509 } from "@cred/oid4vc/x509";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

const BASE = "/management/verification-policies";
const PID = "https://credentials.example.com/pid";
const MDL = "https://credentials.example.com/mdl";
const PROD_ONLY = "https://credentials.example.com/production-only";

const ROOT_PEM = `-----BEGIN CERTIFICATE-----
MIIBfDCCASOgAwIBAgIUUXqA+NTQQSa0YV7ut8/kYu4JaygwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJVGVzdCBSb290MB4XDTI2MTEyMjAyMjUyOFoXDTM2MTExOTAy
MjUyOFowFDESMBAGA1UEAwwJVGVzdCBSb290MFkwEwYHKoZIzj0CAQYIKoZIzj0D
AQcDQgAEtSqu7934pXnngC2aaS3uHrWhjfYDaAYI4kcM9SS6y1s/+4tO2oSHIdWP
gs86jrYEWjHx0NjNTKSaW0qzN7pUjaNTMFEwHQYDVR0OBBYEFJxS4Obs3NdGo1cy
Cy2H9g3/U4GeMB8GA1UdIwQYMBaAFJxS4Obs3NdGo1cyCy2H9g3/U4GeMA8GA1Ud
EwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDRwAwRAIgFuOjU1NTmCs8l3xOGXTZ9LSY
t/1SqPPdSDxYPciNBwUCIATDL2Vf2Gy7gIH6vRvmRtrHXgSbaQLXQ6SuOlJZURMP
-----END CERTIFICATE-----`;

let t: TestServer;
/** Fixed up front so the test tables below can name it. */
const issuerId = newId("iss");
let prodIssuerId: string;

/** Organisation, issuer and credential configurations written directly (the issuers slice is separate). */
async function seedIssuer(
  tenantId: string,
  environment: Environment,
  credentialTypes: string[],
  id = newId("iss"),
) {
  const prisma = t.server.database.prisma;
  const scope = { tenantId, environment };
  const org = await prisma.organisation.create({
    data: { id: newId("org"), ...scope, reference: `org-${newId("x").slice(-8)}`, displayName: "Org" },
  });
  const issuer = await prisma.issuer.create({
    data: {
      id,
      ...scope,
      organisationId: org.id,
      displayName: "Issuer",
      status: "active",
      keys: {
        create: {
          id: newId("ikey"),
          ...scope,
          purpose: "credential_signing",
          state: "current",
          kid: "kid",
          publicJwk: { kty: "EC" },
          privateKeyCipher: "sealed",
        },
      },
    },
  });
  for (const credentialType of credentialTypes) {
    await prisma.credentialConfiguration.create({
      data: {
        id: newId("cfg"),
        ...scope,
        issuerId: issuer.id,
        identifier: `cfg-${newId("x").slice(-10)}`,
        displayName: "Config",
        schemaId: "schema",
        credentialType,
        format: "dc+sd-jwt",
        signingAlgorithm: "ES256",
        defaultLifetimeDays: 365,
        holderBindingRequired: true,
        statusEnabled: true,
        activeVersion: 1,
      },
    });
  }
  return issuer.id;
}

function policy(identifier: string, overrides: Record<string, unknown> = {}) {
  return {
    identifier,
    displayName: `Policy ${identifier}`,
    purpose: "Age check at checkout",
    credentials: [
      {
        id: "pid",
        credentialTypes: [PID],
        trustedIssuers: [{ issuerId }],
        requiredClaims: [["given_name"], ["age_equal_or_over", "18"]],
        optionalClaims: [["family_name"]],
      },
    ],
    ...overrides,
  };
}

// A policy has to ask for some claim (a policy asking for none is refused).
const credential = (overrides: Record<string, unknown>) => ({
  id: "pid",
  credentialTypes: [PID],
  trustedIssuers: [{ issuerId }],
  requiredClaims: [["given_name"]],
  ...overrides,
});

async function create(body: unknown, key = t.adminKey) {
  return call(t, "POST", BASE, { key, body });
}

function targets(r: { body: any }): string[] {
  return (r.body.error.details ?? []).map((d: { target: string }) => d.target);
}

/** Every expected target is named by a detail (or is the prefix of one). */
function expectTargets(r: { body: any }, expected: string[]) {
  const actual = targets(r);
  for (const target of expected) {
    expect(
      actual.some((a) => a === target || a.startsWith(`${target}.`)),
      `${target} in ${JSON.stringify(actual)}`,
    ).toBe(true);
  }
}

beforeAll(async () => {
  t = await startTestServer();
  await seedIssuer(t.tenantId, "sandbox", [PID, MDL], issuerId);
  prodIssuerId = await seedIssuer(t.tenantId, "production", [PROD_ONLY]);
});
afterAll(() => t?.close());

describe("VerificationPolicies_Create", () => {
  it("201 with the policy, defaults applied", async () => {
    const r = await create(policy("over-18"));
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      identifier: "over-18",
      displayName: "Policy over-18",
      purpose: "Age check at checkout",
      status: "active",
      rules: {
        credentials: [
          {
            id: "pid",
            credentialTypes: [PID],
            trustedIssuers: [{ issuerId }],
            requiredClaims: [["given_name"], ["age_equal_or_over", "18"]],
            optionalClaims: [["family_name"]],
            holderBindingRequired: true,
            checkStatus: true,
            maxCredentialAgeDays: null,
          },
        ],
        credentialSets: null,
        responseMode: "direct_post.jwt",
        sessionLifetimeSeconds: 600,
        sameDeviceRedirectUri: null,
        requireResponseCode: false,
        reportInvalidPresentationsToWallet: false,
      },
    });
    expect(Date.parse(r.body.data.createdAt)).not.toBeNaN();
    expect(r.body.data.updatedAt).toBeTypeOf("string");
  });

  it("accepts every option: credential sets, external trust, array claim paths, direct_post", async () => {
    const body = policy("full", {
      purpose: null,
      credentials: [
        credential({
          requiredClaims: [
            ["nationalities", null],
            ["address", "street_address"],
          ],
          optionalClaims: [["degrees", 0, "type"]],
          holderBindingRequired: false,
          checkStatus: false,
          maxCredentialAgeDays: 30,
        }),
        {
          id: "external_mdl",
          credentialTypes: ["https://other.example.org/unknown-type"],
          trustedIssuers: [{ jwksUri: "https://issuer.other.example.org/jwks.json" }, { x5cRoot: ROOT_PEM }],
        },
      ],
      credentialSets: [{ options: [["pid"], ["external_mdl"]] }, { options: [["pid"]], required: false }],
      responseMode: "direct_post",
      sessionLifetimeSeconds: 60,
      sameDeviceRedirectUri: "https://shop.example.com/done",
      requireResponseCode: true,
    });
    const r = await create(body);
    expect(r.status).toBe(201);
    expect(r.body.data.purpose).toBeNull();
    expect(r.body.data.rules).toMatchObject({
      credentialSets: [
        { options: [["pid"], ["external_mdl"]], required: true },
        { options: [["pid"]], required: false },
      ],
      responseMode: "direct_post",
      sessionLifetimeSeconds: 60,
      sameDeviceRedirectUri: "https://shop.example.com/done",
      requireResponseCode: true,
    });
    expect(r.body.data.rules.credentials[0].requiredClaims).toEqual([
      ["nationalities", null],
      ["address", "street_address"],
    ]);
    expect(r.body.data.rules.credentials[1].trustedIssuers[1].x5cRoot).toBe(ROOT_PEM);
  });

  it("replays with the same Idempotency-Key and refuses it with another payload", async () => {
    const headers = { "idempotency-key": "policy-idem-1" };
    const first = await call(t, "POST", BASE, { key: t.adminKey, body: policy("idem-a"), headers });
    expect(first.status).toBe(201);
    const again = await call(t, "POST", BASE, { key: t.adminKey, body: policy("idem-a"), headers });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const other = await call(t, "POST", BASE, { key: t.adminKey, body: policy("idem-b"), headers });
    expect(other.status).toBe(409);
    expect(errorCode(other)).toBe("IdempotencyKeyReused");
  });

  it("409 AlreadyExists on a duplicate identifier; the same identifier is free elsewhere", async () => {
    expect((await create(policy("dup"))).status).toBe(201);
    const r = await create(policy("dup"));
    expect(r.status).toBe(409);
    expect(errorCode(r)).toBe("AlreadyExists");
    const other = await t.otherTenant();
    const otherIssuer = await seedIssuer(other.tenantId, "sandbox", [PID]);
    const inOther = await create(
      policy("dup", { credentials: [credential({ trustedIssuers: [{ issuerId: otherIssuer }] })] }),
      other.key,
    );
    expect(inOther.status).toBe(201);
  });

  it.each([
    ["a bad identifier", policy("-bad id"), ["identifier"]],
    ["an unknown field", { ...policy("unknown-field"), colour: "red" }, ["colour"]],
    ["no credentials", policy("no-creds", { credentials: [] }), ["credentials"]],
    [
      "a bad credential id",
      policy("bad-id", { credentials: [credential({ id: "has space" })] }),
      ["credentials.0.id"],
    ],
    [
      "no credential types",
      policy("no-types", { credentials: [credential({ credentialTypes: [] })] }),
      ["credentials.0.credentialTypes"],
    ],
    [
      "no trusted issuers",
      policy("no-trust", { credentials: [credential({ trustedIssuers: [] })] }),
      ["credentials.0.trustedIssuers"],
    ],
    [
      "an empty claim path",
      policy("empty-path", { credentials: [credential({ requiredClaims: [[]] })] }),
      ["credentials.0.requiredClaims.0"],
    ],
    [
      "an empty claim name",
      policy("empty-name", { credentials: [credential({ requiredClaims: [["address", ""]] })] }),
      ["credentials.0.requiredClaims.0.1"],
    ],
    [
      "a negative array index",
      policy("neg-index", { credentials: [credential({ optionalClaims: [["degrees", -1]] })] }),
      ["credentials.0.optionalClaims.0.1"],
    ],
    [
      "a path starting with null",
      policy("null-start", { credentials: [credential({ requiredClaims: [[null, "x"]] })] }),
      ["credentials.0.requiredClaims.0"],
    ],
    [
      "a duplicate claim",
      policy("dup-claim", { credentials: [credential({ requiredClaims: [["a"], ["a"]] })] }),
      ["credentials.0.requiredClaims.1"],
    ],
    [
      "a claim both required and optional",
      policy("both", {
        credentials: [credential({ requiredClaims: [["a", "b"]], optionalClaims: [["a", "b"]] })],
      }),
      ["credentials.0.optionalClaims.0"],
    ],
    [
      "duplicate credential ids",
      policy("dup-ids", { credentials: [credential({}), credential({})] }),
      ["credentials.1.id"],
    ],
    [
      "a credential set naming an unknown id",
      policy("bad-set", { credentialSets: [{ options: [["pid", "nope"]] }] }),
      ["credentialSets.0.options.0.1"],
    ],
    ["an empty credential set list", policy("empty-sets", { credentialSets: [] }), ["credentialSets"]],
    [
      "an http JWKS URI",
      policy("http-jwks", {
        credentials: [credential({ trustedIssuers: [{ jwksUri: "http://issuer.example.org/jwks" }] })],
      }),
      ["credentials.0.trustedIssuers.0"],
    ],
    [
      "a trusted issuer with two sources",
      policy("two-sources", {
        credentials: [
          credential({ trustedIssuers: [{ issuerId, jwksUri: "https://issuer.example.org/jwks" }] }),
        ],
      }),
      ["credentials.0.trustedIssuers.0"],
    ],
    [
      "an x5cRoot that is not a certificate",
      policy("bad-pem", { credentials: [credential({ trustedIssuers: [{ x5cRoot: "not a pem" }] })] }),
      ["credentials.0.trustedIssuers.0"],
    ],
    ["a short session lifetime", policy("short", { sessionLifetimeSeconds: 59 }), ["sessionLifetimeSeconds"]],
    ["a long session lifetime", policy("long", { sessionLifetimeSeconds: 3601 }), ["sessionLifetimeSeconds"]],
    ["an unknown response mode", policy("mode", { responseMode: "fragment" }), ["responseMode"]],
    [
      "an http redirect URI",
      policy("redirect", { sameDeviceRedirectUri: "http://shop.example.com" }),
      ["sameDeviceRedirectUri"],
    ],
    [
      "a response code required without a redirect",
      policy("code", { requireResponseCode: true }),
      ["requireResponseCode"],
    ],
    [
      "a response code switch that is not a boolean",
      policy("code2", { requireResponseCode: "yes" }),
      ["requireResponseCode"],
    ],
  ])("400 ValidationFailed on %s", async (_name, body, expectedTargets) => {
    const r = await create(body);
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("ValidationFailed");
    expectTargets(r, expectedTargets);
  });

  it("400 on a credential type no configuration here declares, naming the target", async () => {
    const r = await create(
      policy("unknown-type", {
        credentials: [credential({ credentialTypes: [PID, "https://nowhere.example/vct"] })],
      }),
    );
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("ValidationFailed");
    expect(r.body.error.details).toEqual([
      expect.objectContaining({ code: "UnknownCredentialType", target: "credentials.0.credentialTypes.1" }),
    ]);
  });

  it("400 on a credential type known only in the other environment", async () => {
    const r = await create(
      policy("prod-type", { credentials: [credential({ credentialTypes: [PROD_ONLY] })] }),
    );
    expect(r.status).toBe(400);
    expect(r.body.error.details[0].code).toBe("UnknownCredentialType");
  });

  it("accepts an unknown credential type when the credential trusts an external issuer", async () => {
    const r = await create(
      policy("external-type", {
        credentials: [
          credential({
            credentialTypes: ["https://nowhere.example/vct"],
            trustedIssuers: [{ jwksUri: "https://issuer.example.org/jwks.json" }],
          }),
        ],
      }),
    );
    expect(r.status).toBe(201);
  });

  it("400 on an x5cRoot that is not a CA certificate: no chain validates under it", async () => {
    const root = await testParty("CN=Root");
    const leafPem = new x509.X509Certificate(
      await issueTestCertificate(await testParty("CN=Leaf"), { issuer: root }),
    ).toString("pem");
    const r = await create(
      policy("leaf-root", { credentials: [credential({ trustedIssuers: [{ x5cRoot: leafPem }] })] }),
    );
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("ValidationFailed");
    expectTargets(r, ["credentials.0.trustedIssuers.0"]);
  });

  it("400 on an issuer that does not exist here (unknown, other environment, other tenant)", async () => {
    const other = await t.otherTenant();
    const foreignIssuer = await seedIssuer(other.tenantId, "sandbox", [PID]);
    for (const id of ["iss_00000000000000000000000000", prodIssuerId, foreignIssuer]) {
      const r = await create(
        policy(`issuer-${id.slice(-6)}`, {
          credentials: [credential({ trustedIssuers: [{ issuerId: id }] })],
        }),
      );
      expect(r.status, id).toBe(400);
      expect(r.body.error.details).toEqual([
        expect.objectContaining({ code: "UnknownIssuer", target: "credentials.0.trustedIssuers.0.issuerId" }),
      ]);
    }
  });

  it("400 on a JWKS URI pointing at a private or metadata address", async () => {
    for (const jwksUri of [
      "https://10.0.0.8/jwks",
      "https://169.254.169.254/jwks",
      "https://[fd00:ec2::254]/",
    ]) {
      const r = await create(
        policy("private-jwks", { credentials: [credential({ trustedIssuers: [{ jwksUri }] })] }),
      );
      expect(r.status, jwksUri).toBe(400);
      expect(r.body.error.details[0]).toMatchObject({
        code: "UrlNotAllowed",
        target: "credentials.0.trustedIssuers.0.jwksUri",
      });
    }
  });

  it("401 without a key, 403 without verification-policies.manage", async () => {
    const none = await call(t, "POST", BASE, { body: policy("no-key") });
    expect(none.status).toBe(401);
    expect(errorCode(none)).toBe("Unauthenticated");
    const readOnly = await t.key({ scopes: ["verification-policies.read"] });
    const r = await create(policy("read-only"), readOnly);
    expect(r.status).toBe(403);
    expect(errorCode(r)).toBe("MissingScope");
  });
});

describe("VerificationPolicies_Get", () => {
  beforeAll(async () => {
    expect((await create(policy("get-me"))).status).toBe(201);
  });

  it("200 with the rules", async () => {
    const r = await call(t, "GET", `${BASE}/get-me`, { key: t.adminKey });
    expect(r.status).toBe(200);
    expect(r.body.data.identifier).toBe("get-me");
    expect(r.body.data.rules.credentials[0].trustedIssuers).toEqual([{ issuerId }]);
  });

  it("404 for an unknown policy, another tenant's and the other environment's", async () => {
    const unknown = await call(t, "GET", `${BASE}/nope`, { key: t.adminKey });
    expect(unknown.status).toBe(404);
    expect(errorCode(unknown)).toBe("NotFound");
    const other = await t.otherTenant();
    expect((await call(t, "GET", `${BASE}/get-me`, { key: other.key })).status).toBe(404);
    const production = await t.key({ environment: "production" });
    expect((await call(t, "GET", `${BASE}/get-me`, { key: production })).status).toBe(404);
  });

  it("400 on an over-long identifier, 401 without a key, 403 without verification-policies.read", async () => {
    const long = await call(t, "GET", `${BASE}/${"x".repeat(65)}`, { key: t.adminKey });
    expect(long.status).toBe(400);
    expect((await call(t, "GET", `${BASE}/get-me`)).status).toBe(401);
    const manageOnly = await t.key({ scopes: ["verification-policies.manage"] });
    const r = await call(t, "GET", `${BASE}/get-me`, { key: manageOnly });
    expect(r.status).toBe(403);
    expect(errorCode(r)).toBe("MissingScope");
  });
});

describe("VerificationPolicies_List", () => {
  it("returns identifier, displayName and status only, paged in creation order", async () => {
    const other = await t.otherTenant();
    const otherIssuer = await seedIssuer(other.tenantId, "sandbox", [PID]);
    const ids = ["list-a", "list-b", "list-c", "list-d", "list-e"];
    for (const id of ids) {
      const r = await create(
        policy(id, { credentials: [credential({ trustedIssuers: [{ issuerId: otherIssuer }] })] }),
        other.key,
      );
      expect(r.status).toBe(201);
    }
    await call(t, "POST", `${BASE}/list-c/suspend`, { key: other.key });
    const seen: { identifier: string; status: string }[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call(t, "GET", `${BASE}?limit=2${cursor ? `&cursor=${cursor}` : ""}`, {
        key: other.key,
      });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      for (const item of page.body.data) {
        expect(Object.keys(item).sort()).toEqual(["displayName", "identifier", "status"]);
      }
      seen.push(...page.body.data);
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen.map((p) => p.identifier)).toEqual(ids);
    expect(seen.find((p) => p.identifier === "list-c")?.status).toBe("suspended");
    expect(JSON.stringify(seen)).not.toContain("credentials");
  });

  it("never shows another tenant's or environment's policies", async () => {
    const production = await t.key({ environment: "production" });
    const r = await call(t, "GET", BASE, { key: production });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: [], nextCursor: null });
    const mine = await call(t, "GET", `${BASE}?limit=100`, { key: t.adminKey });
    expect(mine.body.data.map((p: { identifier: string }) => p.identifier)).not.toContain("list-a");
  });

  it("400 on a bad limit or cursor, 401 without a key, 403 without verification-policies.read", async () => {
    expect((await call(t, "GET", `${BASE}?limit=0`, { key: t.adminKey })).status).toBe(400);
    expect((await call(t, "GET", `${BASE}?cursor=zzz`, { key: t.adminKey })).status).toBe(400);
    expect((await call(t, "GET", BASE)).status).toBe(401);
    const wrong = await t.key({ scopes: ["verification-policies.manage", "webhooks.read"] });
    expect((await call(t, "GET", BASE, { key: wrong })).status).toBe(403);
    const readOnly = await t.key({ scopes: ["verification-policies.read"] });
    expect((await call(t, "GET", BASE, { key: readOnly })).status).toBe(200);
  });
});

describe("VerificationPolicies_Suspend and _Reactivate", () => {
  const outbox = (type: string) =>
    t.server.database.prisma.outboxEvent.findMany({
      where: { tenantId: t.tenantId, environment: "sandbox", type },
      orderBy: { occurredAt: "asc" },
    });

  it("suspends then reactivates, writing an outbox event for each change", async () => {
    expect((await create(policy("cycle"))).status).toBe(201);
    const suspended = await call(t, "POST", `${BASE}/cycle/suspend`, { key: t.adminKey });
    expect(suspended.status).toBe(200);
    expect(suspended.body.data).toMatchObject({ identifier: "cycle", status: "suspended" });
    expect(suspended.body.data.rules.credentials).toHaveLength(1);
    expect((await call(t, "GET", `${BASE}/cycle`, { key: t.adminKey })).body.data.status).toBe("suspended");
    const suspendedEvents = (await outbox("verification_policy.suspended")).filter(
      (e) => (e.payload as { identifier: string }).identifier === "cycle",
    );
    expect(suspendedEvents).toHaveLength(1);
    expect(suspendedEvents[0]!.payload).toMatchObject({ identifier: "cycle", status: "suspended" });

    const again = await call(t, "POST", `${BASE}/cycle/suspend`, { key: t.adminKey });
    expect(again.status).toBe(409);
    expect(errorCode(again)).toBe("InvalidState");

    const reactivated = await call(t, "POST", `${BASE}/cycle/reactivate`, { key: t.adminKey });
    expect(reactivated.status).toBe(200);
    expect(reactivated.body.data).toMatchObject({ identifier: "cycle", status: "active" });
    const reactivatedEvents = (await outbox("verification_policy.reactivated")).filter(
      (e) => (e.payload as { identifier: string }).identifier === "cycle",
    );
    expect(reactivatedEvents).toHaveLength(1);

    const twice = await call(t, "POST", `${BASE}/cycle/reactivate`, { key: t.adminKey });
    expect(twice.status).toBe(409);
    expect(errorCode(twice)).toBe("InvalidState");
    // Refused transitions write nothing.
    expect(
      (await outbox("verification_policy.suspended")).filter(
        (e) => (e.payload as any).identifier === "cycle",
      ),
    ).toHaveLength(1);
    expect(
      (await outbox("verification_policy.reactivated")).filter(
        (e) => (e.payload as any).identifier === "cycle",
      ),
    ).toHaveLength(1);
  });

  it("409 reactivating a policy that was never suspended", async () => {
    expect((await create(policy("fresh"))).status).toBe(201);
    const r = await call(t, "POST", `${BASE}/fresh/reactivate`, { key: t.adminKey });
    expect(r.status).toBe(409);
    expect(errorCode(r)).toBe("InvalidState");
  });

  it("404 for unknown, another tenant's and the other environment's policies", async () => {
    expect((await create(policy("tenancy"))).status).toBe(201);
    const other = await t.otherTenant();
    const production = await t.key({ environment: "production" });
    for (const action of ["suspend", "reactivate"]) {
      for (const key of [t.adminKey, other.key, production]) {
        const path = key === t.adminKey ? `${BASE}/nope/${action}` : `${BASE}/tenancy/${action}`;
        const r = await call(t, "POST", path, { key });
        expect(r.status, `${action} ${path}`).toBe(404);
        expect(errorCode(r)).toBe("NotFound");
      }
    }
    expect((await call(t, "GET", `${BASE}/tenancy`, { key: t.adminKey })).body.data.status).toBe("active");
  });

  it("401 without a key, 403 without verification-policies.manage, 400 on an over-long identifier", async () => {
    const readOnly = await t.key({ scopes: ["verification-policies.read"] });
    for (const action of ["suspend", "reactivate"]) {
      expect((await call(t, "POST", `${BASE}/tenancy/${action}`)).status).toBe(401);
      const r = await call(t, "POST", `${BASE}/tenancy/${action}`, { key: readOnly });
      expect(r.status).toBe(403);
      expect(errorCode(r)).toBe("MissingScope");
      expect((await call(t, "POST", `${BASE}/${"x".repeat(65)}/${action}`, { key: t.adminKey })).status).toBe(
        400,
      );
    }
  });
});

describe("getActivePolicyForVerification", () => {
  const scope = (): { tenantId: string; environment: Environment } => ({
    tenantId: t.tenantId,
    environment: "sandbox",
  });

  it("returns the row and parsed rules of an active policy", async () => {
    expect((await create(policy("for-verification"))).status).toBe(201);
    const { row, rules } = await getActivePolicyForVerification(
      t.server.deps,
      t.server.database.root,
      scope(),
      "for-verification",
    );
    expect(row.identifier).toBe("for-verification");
    expect(rules.credentials[0]!.requiredClaims).toEqual([["given_name"], ["age_equal_or_over", "18"]]);
    expect(rules.responseMode).toBe("direct_post.jwt");
    expect(rules.sessionLifetimeSeconds).toBe(600);
  });

  it("UnknownPolicy (400) for an unknown or foreign policy, PolicySuspended (409) for a suspended one", async () => {
    const db = t.server.database.root;
    const failure = async (identifier: string, s = scope()) => {
      try {
        await getActivePolicyForVerification(t.server.deps, db, s, identifier);
        return undefined;
      } catch (error) {
        expect(error).toBeInstanceOf(DomainError);
        return [(error as DomainError).code, (error as DomainError).status];
      }
    };
    expect(await failure("missing")).toEqual(["UnknownPolicy", 400]);
    expect(await failure("for-verification", { tenantId: t.tenantId, environment: "production" })).toEqual([
      "UnknownPolicy",
      400,
    ]);
    expect((await create(policy("paused"))).status).toBe(201);
    expect((await call(t, "POST", `${BASE}/paused/suspend`, { key: t.adminKey })).status).toBe(200);
    expect(await failure("paused")).toEqual(["PolicySuspended", 409]);
  });
});
