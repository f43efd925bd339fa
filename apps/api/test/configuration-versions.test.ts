// Versions of a credential configuration's claims: CredentialConfigurations_Get, _CreateVersion and
// _ActivateVersion, and what a version change does to issuance (metadata, new and pending transactions).
import { decodeJwtUnverified } from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ActiveIssuer,
  activeIssuer,
  createTransaction,
  EMPLOYEE_CLAIMS,
  VALID_CLAIMS,
} from "./fixtures";
import { type CallResult, call, errorCode, startTestServer, type TestServer } from "./harness";
import { fetchJson, redeemOffer, wellKnown } from "./wallet-client";

let t: TestServer;
let other: { tenantId: string; key: string };
beforeAll(async () => {
  t = await startTestServer();
  other = await t.otherTenant();
});
afterAll(() => t?.close());

const CONFIGS = "/management/credential-configurations";
const versionsOf = (identifier: string) => `${CONFIGS}/${identifier}/versions`;

/** Version 2's schema: employee_number is gone, a required `level` is new. */
const LEVEL_CLAIMS = [
  ...EMPLOYEE_CLAIMS.filter((c) => c.path[0] !== "employee_number"),
  { path: ["level"], type: "string", required: true },
];
const { employee_number: _dropped, ...V1_ONLY_WITHOUT_NUMBER } = VALID_CLAIMS;
const LEVEL_VALUES = { ...V1_ONLY_WITHOUT_NUMBER, level: "gold" };

function expectError(r: CallResult, status: number, code: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(errorCode(r)).toBe(code);
}

/** The claim names an issued SD-JWT VC discloses. */
function disclosedNames(credential: string): string[] {
  return credential
    .split("~")
    .slice(1)
    .filter(Boolean)
    .map((d) => JSON.parse(Buffer.from(d, "base64url").toString("utf8")) as unknown[])
    .filter((d) => d.length === 3)
    .map((d) => d[1] as string);
}

async function issue(offer: string) {
  const redeemed = await redeemOffer(offer);
  expect(redeemed.credentialRes.status, JSON.stringify(redeemed.credentialRes.body)).toBe(200);
  return redeemed.credentialRes.body.credentials[0].credential as string;
}

async function transaction(active: ActiveIssuer, claims: Record<string, unknown>) {
  return call(t, "POST", "/v1.0/issuance-transactions", {
    key: t.adminKey,
    body: { credentialConfiguration: active.configuration, issuerId: active.issuerId, claims },
  });
}

async function events(type: string, identifier: string) {
  const rows = await t.server.database.prisma.outboxEvent.findMany({
    where: { type },
    orderBy: { id: "asc" },
  });
  return rows.filter((e) => (e.payload as { identifier?: string }).identifier === identifier);
}

describe("CredentialConfigurations_CreateVersion", () => {
  it("activates the new version for metadata and new transactions; pending ones keep theirs", async () => {
    const active = await activeIssuer(t, t.adminKey);
    const pendingOnV1 = await createTransaction(t, t.adminKey, active);

    const r = await call(t, "POST", versionsOf(active.configuration), {
      key: t.adminKey,
      body: { claims: LEVEL_CLAIMS, reason: "Adds the level" },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data).toMatchObject({
      identifier: active.configuration,
      activeVersion: 2,
      versions: [
        { version: 1, status: "superseded", reason: null },
        { version: 2, status: "active", reason: "Adds the level", activatedAt: expect.any(String) },
      ],
    });
    expect(r.body.data.claims.map((c: { path: string[] }) => c.path.join("."))).toContain("level");
    const got = await call(t, "GET", `${CONFIGS}/${active.configuration}`, { key: t.adminKey });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(r.body);
    expect(await events("credential_configuration.version_activated", active.configuration)).toMatchObject([
      { payload: { version: 2, previousVersion: 1, issuerId: active.issuerId } },
    ]);
    // Each version's own claims stay readable.
    const v1 = await call(t, "GET", `${versionsOf(active.configuration)}/1`, { key: t.adminKey });
    expect(v1.status).toBe(200);
    expect(v1.body.data).toMatchObject({ version: 1, status: "superseded" });
    expect(v1.body.data.claims.map((c: { path: string[] }) => c.path.join("."))).toContain("employee_number");
    const v2 = await call(t, "GET", `${versionsOf(active.configuration)}/2`, { key: t.adminKey });
    expect(v2.body.data).toMatchObject({ version: 2, status: "active", reason: "Adds the level" });
    expectError(
      await call(t, "GET", `${versionsOf(active.configuration)}/3`, { key: t.adminKey }),
      404,
      "NotFound",
    );
    expectError(
      await call(t, "GET", `${versionsOf(active.configuration)}/x`, { key: t.adminKey }),
      400,
      "ValidationFailed",
    );

    // Wallet-facing metadata describes version 2.
    const metadata = (await fetchJson(wellKnown("openid-credential-issuer", active.credentialIssuer))).body;
    const supported = JSON.stringify(metadata.credential_configurations_supported[active.configuration]);
    expect(supported).toContain('"level"');
    expect(supported).not.toContain("employee_number");
    // The Type Metadata describes credentials of both versions, which share the vct.
    const typeMetadata = (await fetchJson(active.credentialType)).body;
    const typeClaim = (name: string) =>
      typeMetadata.claims.find((c: { path: string[] }) => c.path.join(".") === name);
    expect(typeClaim("level")).toMatchObject({ mandatory: false, sd: "always" });
    expect(typeClaim("employee_number")).toMatchObject({ mandatory: false, sd: "never" });
    expect(typeClaim("given_name")).toMatchObject({ mandatory: true });

    // New transactions are checked against version 2 …
    expectError(await transaction(active, VALID_CLAIMS), 400, "UnknownClaim");
    const onV2 = await transaction(active, LEVEL_VALUES);
    expect(onV2.status, JSON.stringify(onV2.body)).toBe(201);
    expect(disclosedNames(await issue(onV2.body.data.credentialOffer))).toContain("level");
    // … while the one created before the change issues what version 1 defined.
    const v1Credential = await issue(pendingOnV1.credentialOffer);
    const payload = decodeJwtUnverified(v1Credential.split("~")[0]!).payload as Record<string, unknown>;
    expect(payload.employee_number).toBe(4711); // not selectively disclosable in version 1
    expect(disclosedNames(v1Credential)).not.toContain("level");
  });

  it("accepts Idempotency-Key: a replay creates no second version; another payload → 409", async () => {
    const active = await activeIssuer(t, t.adminKey);
    const headers = { "idempotency-key": `version-${active.configuration}` };
    const payload = { claims: LEVEL_CLAIMS };
    const first = await call(t, "POST", versionsOf(active.configuration), {
      key: t.adminKey,
      body: payload,
      headers,
    });
    expect(first.status).toBe(201);
    const again = await call(t, "POST", versionsOf(active.configuration), {
      key: t.adminKey,
      body: payload,
      headers,
    });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(first.body.data.versions).toHaveLength(2);
    expectError(
      await call(t, "POST", versionsOf(active.configuration), {
        key: t.adminKey,
        body: { claims: EMPLOYEE_CLAIMS },
        headers,
      }),
      409,
      "IdempotencyKeyReused",
    );
  });

  it("400 for a missing or invalid claims schema, leaving the configuration as it was", async () => {
    const active = await activeIssuer(t, t.adminKey);
    const url = versionsOf(active.configuration);
    expectError(await call(t, "POST", url, { key: t.adminKey, body: {} }), 400, "ValidationFailed");
    expectError(
      await call(t, "POST", url, { key: t.adminKey, body: { claims: [{ path: ["a"], type: "uuid" }] } }),
      400,
      "ValidationFailed",
    );
    // The same rules as at creation: here, one claim path twice.
    const twice = await call(t, "POST", url, {
      key: t.adminKey,
      body: { claims: [EMPLOYEE_CLAIMS[0], EMPLOYEE_CLAIMS[0]] },
    });
    expectError(twice, 400, "ValidationFailed");
    expect(twice.body.error.details[0].code).toBe("DuplicateClaimPath");
    expectError(
      await call(t, "POST", url, { key: t.adminKey, body: { claims: [], reason: "" } }),
      400,
      "ValidationFailed",
    );
    const got = await call(t, "GET", `${CONFIGS}/${active.configuration}`, { key: t.adminKey });
    expect(got.body.data).toMatchObject({ activeVersion: 1, versions: [{ version: 1, status: "active" }] });
    expect(await events("credential_configuration.version_activated", active.configuration)).toEqual([]);
  });

  it("409 InvalidState once the configuration has 100 versions", async () => {
    const active = await activeIssuer(t, t.adminKey);
    for (let i = 2; i <= 100; i++) {
      const r = await call(t, "POST", versionsOf(active.configuration), {
        key: t.adminKey,
        body: { claims: EMPLOYEE_CLAIMS, reason: `v${i}` },
      });
      expect(r.status).toBe(201);
    }
    const full = await call(t, "POST", versionsOf(active.configuration), {
      key: t.adminKey,
      body: { claims: EMPLOYEE_CLAIMS },
    });
    expectError(full, 409, "InvalidState");
    expect(full.body.error.details[0].code).toBe("VersionLimit");
    const got = await call(t, "GET", `${CONFIGS}/${active.configuration}`, { key: t.adminKey });
    expect(got.body.data.activeVersion).toBe(100);
  });
});

describe("CredentialConfigurations_ActivateVersion", () => {
  it("rolls back to an earlier version and forward again; the active one is a no-op", async () => {
    const active = await activeIssuer(t, t.adminKey);
    await call(t, "POST", versionsOf(active.configuration), {
      key: t.adminKey,
      body: { claims: LEVEL_CLAIMS },
    });

    const back = await call(t, "POST", `${versionsOf(active.configuration)}/1/activate`, { key: t.adminKey });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body.data).toMatchObject({
      activeVersion: 1,
      versions: [
        { version: 1, status: "active" },
        { version: 2, status: "superseded" },
      ],
    });
    expect(back.body.data.claims.map((c: { path: string[] }) => c.path.join("."))).toContain(
      "employee_number",
    );
    expect((await transaction(active, VALID_CLAIMS)).status).toBe(201);
    expectError(await transaction(active, LEVEL_VALUES), 400, "UnknownClaim");

    const same = await call(t, "POST", `${versionsOf(active.configuration)}/1/activate`, { key: t.adminKey });
    expect(same.status).toBe(200);
    expect(same.body.data).toEqual(back.body.data);
    const forward = await call(t, "POST", `${versionsOf(active.configuration)}/2/activate`, {
      key: t.adminKey,
    });
    expect(forward.body.data.activeVersion).toBe(2);
    expect(
      (await events("credential_configuration.version_activated", active.configuration)).map(
        (e) => (e.payload as { version: number }).version,
      ),
    ).toEqual([2, 1, 2]);
    // A third version follows the highest, whichever is active.
    await call(t, "POST", `${versionsOf(active.configuration)}/1/activate`, { key: t.adminKey });
    const third = await call(t, "POST", versionsOf(active.configuration), {
      key: t.adminKey,
      body: { claims: EMPLOYEE_CLAIMS },
    });
    expect(third.body.data.activeVersion).toBe(3);
  });

  it("404 for a version that does not exist, 400 for one that is not a version number", async () => {
    const active = await activeIssuer(t, t.adminKey);
    const base = versionsOf(active.configuration);
    expectError(await call(t, "POST", `${base}/2/activate`, { key: t.adminKey }), 404, "NotFound");
    for (const version of ["0", "abc", "1.5", "101"]) {
      expectError(
        await call(t, "POST", `${base}/${version}/activate`, { key: t.adminKey }),
        400,
        "ValidationFailed",
      );
    }
  });
});

describe("CredentialConfigurations_Get and concurrent changes", () => {
  it("400 for an identifier that cannot be one", async () => {
    for (const identifier of ["not%20valid", "a".repeat(101)]) {
      expectError(
        await call(t, "GET", `${CONFIGS}/${identifier}`, { key: t.adminKey }),
        400,
        "ValidationFailed",
      );
    }
  });

  it("numbers versions created at the same moment one after the other", async () => {
    const active = await activeIssuer(t, t.adminKey);
    const created = await Promise.all(
      [1, 2, 3].map((n) =>
        call(t, "POST", versionsOf(active.configuration), {
          key: t.adminKey,
          body: { claims: EMPLOYEE_CLAIMS, reason: `parallel ${n}` },
        }),
      ),
    );
    expect(created.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(created.map((r) => r.body.data.activeVersion).sort()).toEqual([2, 3, 4]);
    const got = await call(t, "GET", `${CONFIGS}/${active.configuration}`, { key: t.adminKey });
    expect(got.body.data.versions.map((v: { version: number }) => v.version)).toEqual([1, 2, 3, 4]);
    expect(got.body.data.versions.filter((v: { status: string }) => v.status === "active")).toHaveLength(1);
    expect(await events("credential_configuration.version_activated", active.configuration)).toHaveLength(3);
  });
});

describe("visibility and scopes of the three operations", () => {
  it("404 for unknown configurations and those of another tenant, environment or issuer", async () => {
    const active = await activeIssuer(t, t.adminKey);
    const ops = (identifier: string): [string, string, unknown][] => [
      ["GET", `${CONFIGS}/${identifier}`, undefined],
      ["GET", `${versionsOf(identifier)}/1`, undefined],
      ["POST", versionsOf(identifier), { claims: EMPLOYEE_CLAIMS }],
      ["POST", `${versionsOf(identifier)}/1/activate`, undefined],
    ];
    const production = await t.key({ environment: "production" });
    const otherIssuer = await activeIssuer(t, t.adminKey);
    const boundElsewhere = await t.key({ issuerId: otherIssuer.issuerId });
    for (const [method, path, body] of ops(active.configuration)) {
      for (const key of [other.key, production, boundElsewhere]) {
        expectError(await call(t, method, path, { key, body }), 404, "NotFound");
      }
    }
    for (const [method, path, body] of ops("no-such-configuration")) {
      expectError(await call(t, method, path, { key: t.adminKey, body }), 404, "NotFound");
    }
    const bound = await t.key({ issuerId: active.issuerId });
    for (const [method, path, body] of ops(active.configuration)) {
      expect((await call(t, method, path, { key: bound, body })).status).toBeLessThan(300);
    }
    expect(await events("credential_configuration.version_activated", active.configuration)).toHaveLength(2);
  });

  it("Get needs issuers.read; versions need credential-configurations.manage or issuers.manage", async () => {
    const active = await activeIssuer(t, t.adminKey);
    const readOnly = await t.key({ scopes: ["issuers.read"] });
    expect((await call(t, "GET", `${CONFIGS}/${active.configuration}`, { key: readOnly })).status).toBe(200);
    expectError(
      await call(t, "POST", versionsOf(active.configuration), {
        key: readOnly,
        body: { claims: EMPLOYEE_CLAIMS },
      }),
      403,
      "MissingScope",
    );
    expectError(
      await call(t, "POST", `${versionsOf(active.configuration)}/1/activate`, { key: readOnly }),
      403,
      "MissingScope",
    );
    const manage = await t.key({ scopes: ["credential-configurations.manage"] });
    expectError(
      await call(t, "GET", `${CONFIGS}/${active.configuration}`, { key: manage }),
      403,
      "MissingScope",
    );
    for (const scopes of [["credential-configurations.manage"], ["issuers.manage"]] as const) {
      const key = await t.key({ scopes: [...scopes] });
      const r = await call(t, "POST", versionsOf(active.configuration), {
        key,
        body: { claims: EMPLOYEE_CLAIMS },
      });
      expect(r.status).toBe(201);
      expect((await call(t, "POST", `${versionsOf(active.configuration)}/1/activate`, { key })).status).toBe(
        200,
      );
    }
  });

  it("are documented in the OpenAPI document with their statuses", async () => {
    const doc = (await call(t, "GET", "/openapi.json")).body;
    const get = doc.paths[`${CONFIGS}/{configurationIdentifier}`].get;
    const create = doc.paths[`${CONFIGS}/{configurationIdentifier}/versions`].post;
    const activate = doc.paths[`${CONFIGS}/{configurationIdentifier}/versions/{version}/activate`].post;
    expect([get.operationId, create.operationId, activate.operationId]).toEqual([
      "CredentialConfigurations_Get",
      "CredentialConfigurations_CreateVersion",
      "CredentialConfigurations_ActivateVersion",
    ]);
    expect(Object.keys(create.responses).sort()).toEqual(["201", "400", "401", "403", "404", "409", "429"]);
    expect(Object.keys(activate.responses).sort()).toEqual(["200", "400", "401", "403", "404", "429"]);
    expect(create.parameters.map((p: { $ref?: string }) => p.$ref)).toContain(
      "#/components/parameters/IdempotencyKey",
    );
  });
});
