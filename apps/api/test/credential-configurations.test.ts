import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CallResult, call, errorCode, startTestServer, type TestServer } from "./harness";

let t: TestServer;
let other: { tenantId: string; key: string };
let productionKey: string;
beforeAll(async () => {
  t = await startTestServer();
  other = await t.otherTenant();
  productionKey = await t.key({ environment: "production" });
});
afterAll(() => t?.close());

const CONFIGS = "/management/credential-configurations";
let counter = 0;

async function createIssuer(key = t.adminKey) {
  const reference = `org-${++counter}`;
  const org = await call(t, "POST", "/management/organisations", {
    key,
    body: { reference, displayName: `Org ${reference}` },
  });
  expect(org.status).toBe(201);
  const r = await call(t, "POST", "/management/issuers", {
    key,
    body: {
      organisationReference: reference,
      displayName: "Acme",
      display: [{ locale: "en", name: "Acme" }],
    },
  });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; credentialIssuer: string };
}

const claims = [
  { path: ["given_name"], type: "string", required: true, display: [{ locale: "en", name: "Given name" }] },
  { path: ["birthdate"], type: "date", required: true, selectivelyDisclosable: true },
  { path: ["address"], type: "object", required: false },
  {
    path: ["address", "country"],
    type: "string",
    required: false,
    constraints: { pattern: "^[A-Z]{2}$", maxLength: 2, enum: ["NL", "BE"] },
  },
  { path: ["age"], type: "integer", required: false, constraints: { minimum: 0, maximum: 150 } },
  { path: ["member"], type: "boolean", required: false, selectivelyDisclosable: false },
  { path: ["nicknames"], type: "array", required: false },
];

function body(issuerId: string, identifier = `card-${++counter}`, extra: Record<string, unknown> = {}) {
  return {
    identifier,
    displayName: "Membership card",
    issuerId,
    schemaId: "https://schemas.example/membership/v1",
    claims,
    ...extra,
  };
}

function expectError(r: CallResult, status: number, code: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(errorCode(r)).toBe(code);
}

const targets = (r: CallResult) => r.body.error.details.map((d: { target: string }) => d.target);

describe("CredentialConfigurations_Create", () => {
  it("creates the configuration with version 1 active, the issuer grant and an outbox event, in one go", async () => {
    const issuer = await createIssuer();
    const r = await call(t, "POST", CONFIGS, {
      key: t.adminKey,
      body: body(issuer.id, "membership", { reason: "First release" }),
    });
    expect(r.status).toBe(201);
    const config = r.body.data;
    expect(config).toMatchObject({
      identifier: "membership",
      displayName: "Membership card",
      issuerId: issuer.id,
      schemaId: "https://schemas.example/membership/v1",
      credentialType: `${issuer.credentialIssuer}/credentials/membership`,
      defaultLifetimeDays: 365,
      format: "dc+sd-jwt",
      signingAlgorithm: "ES256",
      holderBindingRequired: true,
      statusEnabled: true,
      activeVersion: 1,
      environment: "sandbox",
      versions: [{ version: 1, status: "active", reason: "First release", createdAt: expect.any(String) }],
    });
    expect(config.id).toMatch(/^ccf_[0-9a-z]{26}$/);
    expect(config.createdAt).toEqual(expect.any(String));
    expect(config.claims).toHaveLength(claims.length);
    expect(config.claims[0]).toMatchObject({
      path: ["given_name"],
      selectivelyDisclosable: true,
      required: true,
    });
    expect(config.claims[5]).toMatchObject({ path: ["member"], selectivelyDisclosable: false });

    const prisma = t.server.database.prisma;
    const row = await prisma.credentialConfiguration.findUniqueOrThrow({ where: { id: config.id } });
    expect(row).toMatchObject({ tenantId: t.tenantId, environment: "sandbox", activeVersion: 1 });
    const versions = await prisma.credentialConfigurationVersion.findMany({
      where: { configurationId: config.id },
    });
    expect(versions).toMatchObject([{ version: 1, status: "active" }]);
    expect(versions[0]!.activatedAt).not.toBeNull();
    const grants = await prisma.issuerConfigurationGrant.findMany({ where: { configurationId: config.id } });
    expect(grants.map((g) => g.issuerId)).toEqual([issuer.id]);
    const events = await prisma.outboxEvent.findMany({ where: { type: "credential_configuration.created" } });
    const mine = events.filter((e) => (e.payload as any).credentialConfigurationId === config.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      tenantId: t.tenantId,
      environment: "sandbox",
      payload: {
        identifier: "membership",
        issuerId: issuer.id,
        credentialType: config.credentialType,
        version: 1,
      },
    });
  });

  it("keeps explicit settings and accepts the platform values when named", async () => {
    const issuer = await createIssuer();
    const r = await call(t, "POST", CONFIGS, {
      key: t.adminKey,
      body: body(issuer.id, "explicit", {
        credentialType: "urn:example:membership:1",
        defaultLifetimeDays: 30,
        format: "dc+sd-jwt",
        signingAlgorithm: "ES256",
        holderBindingRequired: false,
        statusEnabled: false,
        claims: null,
      }),
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      credentialType: "urn:example:membership:1",
      defaultLifetimeDays: 30,
      holderBindingRequired: false,
      statusEnabled: false,
      claims: [],
      versions: [{ version: 1, status: "active", reason: null }],
    });
  });

  it("400 PlatformLimit for another format or signing algorithm", async () => {
    const issuer = await createIssuer();
    const format = await call(t, "POST", CONFIGS, {
      key: t.adminKey,
      body: body(issuer.id, undefined, { format: "jwt_vc_json" }),
    });
    expectError(format, 400, "PlatformLimit");
    expect(targets(format)).toEqual(["format"]);
    const alg = await call(t, "POST", CONFIGS, {
      key: t.adminKey,
      body: body(issuer.id, undefined, { signingAlgorithm: "EdDSA" }),
    });
    expectError(alg, 400, "PlatformLimit");
    expect(targets(alg)).toEqual(["signingAlgorithm"]);
    const both = await call(t, "POST", CONFIGS, {
      key: t.adminKey,
      body: body(issuer.id, undefined, { format: "mso_mdoc", signingAlgorithm: "ES384" }),
    });
    expect(targets(both)).toEqual(["format", "signingAlgorithm"]);
  });

  it("400 for invalid fields", async () => {
    const issuer = await createIssuer();
    const cases: [Record<string, unknown>, string][] = [
      [{ identifier: "has space" }, "identifier"],
      [{ identifier: "x".repeat(101) }, "identifier"],
      [{ displayName: "" }, "displayName"],
      [{ schemaId: undefined }, "schemaId"],
      [{ defaultLifetimeDays: 0 }, "defaultLifetimeDays"],
      [{ defaultLifetimeDays: 36_501 }, "defaultLifetimeDays"],
      [{ defaultLifetimeDays: 1.5 }, "defaultLifetimeDays"],
      [{ defaultLifetimeDays: 2_147_483_648 }, "defaultLifetimeDays"],
      [{ defaultLifetimeDays: "forever" }, "defaultLifetimeDays"],
      [{ credentialType: "has space" }, "credentialType"],
      [{ colour: "red" }, "colour"],
    ];
    for (const [extra, target] of cases) {
      const r = await call(t, "POST", CONFIGS, { key: t.adminKey, body: body(issuer.id, undefined, extra) });
      expectError(r, 400, "ValidationFailed");
      expect(targets(r), JSON.stringify(extra)).toContain(target);
    }
  });

  it("400 for claims that are malformed or inconsistent", async () => {
    const issuer = await createIssuer();
    const s = (path: string[], type = "string", extra: Record<string, unknown> = {}) => ({
      path,
      type,
      required: false,
      ...extra,
    });
    const cases: [unknown[], string, string][] = [
      [[s(["a"], "uuid")], "claims.0.type", "ValidationFailed"],
      [[s([])], "claims.0.path", "ValidationFailed"],
      [[{ ...s(["a"]), colour: "red" }], "claims.0.colour", "ValidationFailed"],
      [[s(["a"]), s(["a"], "number")], "claims.1.path", "DuplicateClaimPath"],
      [[s(["address"]), s(["address", "street"])], "claims.1.path", "ClaimPathConflict"],
      [[s(["tags"], "array"), s(["tags", "first"])], "claims.1.path", "ClaimPathConflict"],
      [[s(["iss"])], "claims.0.path", "ReservedClaimName"],
      [[s(["vct"])], "claims.0.path", "ReservedClaimName"],
      [[s(["cnf", "jwk"], "object")], "claims.0.path", "ReservedClaimName"],
      [[s(["status"], "object")], "claims.0.path", "ReservedClaimName"],
      [[s(["a", "_sd"])], "claims.0.path", "ReservedClaimName"],
      [[s(["sub"], "integer")], "claims.0.type", "InvalidClaimType"],
      [
        [s(["n"], "integer", { constraints: { pattern: "^1" } })],
        "claims.0.constraints.pattern",
        "ConstraintNotApplicable",
      ],
      [
        [s(["n"], "number", { constraints: { maxLength: 3 } })],
        "claims.0.constraints.maxLength",
        "ConstraintNotApplicable",
      ],
      [
        [s(["n"], "string", { constraints: { minimum: 1 } })],
        "claims.0.constraints.minimum",
        "ConstraintNotApplicable",
      ],
      [
        [s(["n"], "boolean", { constraints: { maximum: 1 } })],
        "claims.0.constraints.maximum",
        "ConstraintNotApplicable",
      ],
      [
        [s(["n"], "integer", { constraints: { minimum: 5, maximum: 1 } })],
        "claims.0.constraints.minimum",
        "InvalidRange",
      ],
      [
        [s(["n"], "string", { constraints: { pattern: "([a-z" } })],
        "claims.0.constraints.pattern",
        "InvalidPattern",
      ],
      // Patterns must run in linear time: no backreferences or lookaround; no Unicode-mode-only escapes.
      ...["(a)\\1", "(?=a)b", "(?<!x)y", "\\p{L}+", "\\u{1F600}"].map(
        (pattern): [unknown[], string, string] => [
          [s(["n"], "string", { constraints: { pattern } })],
          "claims.0.constraints.pattern",
          "InvalidPattern",
        ],
      ),
      [
        [s(["n"], "string", { constraints: { enum: ["a", 1] } })],
        "claims.0.constraints.enum.1",
        "InvalidEnumValue",
      ],
      [
        [s(["n"], "integer", { constraints: { enum: [1, 2.5] } })],
        "claims.0.constraints.enum.1",
        "InvalidEnumValue",
      ],
      [
        [s(["n"], "date", { constraints: { enum: ["2024-02-30"] } })],
        "claims.0.constraints.enum.0",
        "InvalidEnumValue",
      ],
      [
        [s(["n"], "object", { constraints: { enum: ["x"] } })],
        "claims.0.constraints.enum",
        "ConstraintNotApplicable",
      ],
      [
        [s(["n"], "string", { constraints: { enum: ["a", "a"] } })],
        "claims.0.constraints.enum",
        "DuplicateEnumValue",
      ],
      [
        [
          s(["n"], "string", {
            display: [
              { locale: "en", name: "A" },
              { locale: "en", name: "B" },
            ],
          }),
        ],
        "claims.0.display",
        "DuplicateLocale",
      ],
    ];
    for (const [claimList, target, detailCode] of cases) {
      const r = await call(t, "POST", CONFIGS, {
        key: t.adminKey,
        body: body(issuer.id, undefined, { claims: claimList }),
      });
      expectError(r, 400, "ValidationFailed");
      const details = r.body.error.details as { code: string; target: string }[];
      const match = details.find((d) => d.target === target);
      expect(match, `${JSON.stringify(claimList)} → ${JSON.stringify(details)}`).toBeDefined();
      if (detailCode !== "ValidationFailed") expect(match!.code).toBe(detailCode);
    }
    // Nesting under a declared object, an undeclared parent and `sub` as a string are fine.
    const ok = await call(t, "POST", CONFIGS, {
      key: t.adminKey,
      body: body(issuer.id, undefined, {
        claims: [
          s(["sub"]),
          s(["place_of_birth", "locality"]),
          s(["address"], "object"),
          s(["address", "street"]),
        ],
      }),
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });

  it("409 AlreadyExists for a duplicate identifier in the tenant and environment, and writes nothing", async () => {
    const issuer = await createIssuer();
    const other2 = await createIssuer();
    expect((await call(t, "POST", CONFIGS, { key: t.adminKey, body: body(issuer.id, "dup") })).status).toBe(
      201,
    );
    const prisma = t.server.database.prisma;
    const before = await Promise.all([
      prisma.credentialConfiguration.count(),
      prisma.credentialConfigurationVersion.count(),
      prisma.issuerConfigurationGrant.count(),
      prisma.outboxEvent.count(),
    ]);
    const r = await call(t, "POST", CONFIGS, { key: t.adminKey, body: body(other2.id, "dup") });
    expectError(r, 409, "AlreadyExists");
    expect(targets(r)).toEqual(["identifier"]);
    const after = await Promise.all([
      prisma.credentialConfiguration.count(),
      prisma.credentialConfigurationVersion.count(),
      prisma.issuerConfigurationGrant.count(),
      prisma.outboxEvent.count(),
    ]);
    expect(after).toEqual(before);

    // The identifier is free in the other environment and in another tenant.
    const productionIssuer = await createIssuer(productionKey);
    const production = await call(t, "POST", CONFIGS, {
      key: productionKey,
      body: body(productionIssuer.id, "dup"),
    });
    expect(production.status).toBe(201);
    expect(production.body.data.environment).toBe("production");
    const foreignIssuer = await createIssuer(other.key);
    expect(
      (await call(t, "POST", CONFIGS, { key: other.key, body: body(foreignIssuer.id, "dup") })).status,
    ).toBe(201);
  });

  it("404 for an unknown issuer, another tenant's or environment's, or one an issuer-bound key does not own", async () => {
    const issuer = await createIssuer();
    const foreignIssuer = await createIssuer(other.key);
    expectError(
      await call(t, "POST", CONFIGS, { key: t.adminKey, body: body("iss_unknown") }),
      404,
      "NotFound",
    );
    expectError(
      await call(t, "POST", CONFIGS, { key: t.adminKey, body: body(foreignIssuer.id) }),
      404,
      "NotFound",
    );
    expectError(
      await call(t, "POST", CONFIGS, { key: productionKey, body: body(issuer.id) }),
      404,
      "NotFound",
    );
    const otherIssuer = await createIssuer();
    const bound = await t.key({ issuerId: otherIssuer.id, scopes: ["credential-configurations.manage"] });
    expectError(await call(t, "POST", CONFIGS, { key: bound, body: body(issuer.id) }), 404, "NotFound");
    expect((await call(t, "POST", CONFIGS, { key: bound, body: body(otherIssuer.id) })).status).toBe(201);
  });

  it("accepts credential-configurations.manage or issuers.manage; 403 otherwise; 401 without a key", async () => {
    const issuer = await createIssuer();
    const configsManage = await t.key({ scopes: ["credential-configurations.manage"] });
    expect((await call(t, "POST", CONFIGS, { key: configsManage, body: body(issuer.id) })).status).toBe(201);
    const issuersManage = await t.key({ scopes: ["issuers.manage"] });
    expect((await call(t, "POST", CONFIGS, { key: issuersManage, body: body(issuer.id) })).status).toBe(201);
    const readOnly = await t.key({ scopes: ["issuers.read", "organisations.manage"] });
    const r = await call(t, "POST", CONFIGS, { key: readOnly, body: body(issuer.id) });
    expectError(r, 403, "MissingScope");
    expect(r.body.error.message).toContain("credential-configurations.manage");
    expectError(await call(t, "POST", CONFIGS, { body: body(issuer.id) }), 401, "Unauthenticated");
  });

  it("accepts Idempotency-Key: replays, 409 for another payload", async () => {
    const issuer = await createIssuer();
    const headers = { "idempotency-key": "ccf-create-1" };
    const payload = body(issuer.id, "idem-card");
    const first = await call(t, "POST", CONFIGS, { key: t.adminKey, body: payload, headers });
    expect(first.status).toBe(201);
    const again = await call(t, "POST", CONFIGS, { key: t.adminKey, body: payload, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const events = await t.server.database.prisma.outboxEvent.findMany({
      where: { type: "credential_configuration.created" },
    });
    expect(events.filter((e) => (e.payload as any).identifier === "idem-card")).toHaveLength(1);
    expectError(
      await call(t, "POST", CONFIGS, {
        key: t.adminKey,
        body: { ...payload, displayName: "Other" },
        headers,
      }),
      409,
      "IdempotencyKeyReused",
    );
  });
});

describe("CredentialConfigurations_List", () => {
  it("pages in a stable order and filters by issuer", async () => {
    const key = await t.key({ environment: "production" });
    const a = await createIssuer(key);
    const b = await createIssuer(key);
    const ids: string[] = [];
    for (const issuer of [a, b, a, a, b]) {
      const r = await call(t, "POST", CONFIGS, { key, body: body(issuer.id) });
      expect(r.status).toBe(201);
      ids.push(r.body.data.id);
    }
    const all = await call(t, "GET", `${CONFIGS}?limit=100`, { key });
    const mine = all.body.data.filter((c: { id: string }) => ids.includes(c.id));
    expect(mine.map((c: { id: string }) => c.id)).toEqual(ids);
    expect(mine[0]).toMatchObject({ activeVersion: 1, versions: [{ version: 1, status: "active" }] });
    expect(mine[0].claims).toHaveLength(claims.length);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: CallResult = await call(
        t,
        "GET",
        `${CONFIGS}?issuerId=${a.id}&limit=2${cursor ? `&cursor=${cursor}` : ""}`,
        { key },
      );
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((c: { id: string }) => c.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([ids[0], ids[2], ids[3]]);

    const unknown = await call(t, "GET", `${CONFIGS}?issuerId=iss_unknown`, { key });
    expect(unknown.body).toEqual({ data: [], nextCursor: null });
  });

  it("shows nothing of another tenant or environment, and only its issuer's to an issuer-bound key", async () => {
    const issuer = await createIssuer();
    const otherIssuer = await createIssuer();
    const mine = (await call(t, "POST", CONFIGS, { key: t.adminKey, body: body(issuer.id) })).body.data;
    const theirs = (await call(t, "POST", CONFIGS, { key: t.adminKey, body: body(otherIssuer.id) })).body
      .data;

    const foreign = await call(t, "GET", `${CONFIGS}?limit=100`, { key: other.key });
    expect(foreign.status).toBe(200);
    expect(foreign.body.data.map((c: { id: string }) => c.id)).not.toContain(mine.id);
    const production = await call(t, "GET", `${CONFIGS}?limit=100`, { key: productionKey });
    expect(production.body.data.every((c: { environment: string }) => c.environment === "production")).toBe(
      true,
    );
    expect(
      (await call(t, "GET", `${CONFIGS}?issuerId=${issuer.id}`, { key: productionKey })).body.data,
    ).toEqual([]);

    const bound = await t.key({ issuerId: issuer.id, scopes: ["issuers.read"] });
    const list = await call(t, "GET", `${CONFIGS}?limit=100`, { key: bound });
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([mine.id]);
    const asked = await call(t, "GET", `${CONFIGS}?issuerId=${otherIssuer.id}`, { key: bound });
    expect(asked.body.data).toEqual([]);
    expect(theirs.id).not.toBe(mine.id);
  });

  it("needs issuers.read (403), a key (401) and a valid limit and cursor (400)", async () => {
    const manageOnly = await t.key({ scopes: ["credential-configurations.manage", "issuers.manage"] });
    expectError(await call(t, "GET", CONFIGS, { key: manageOnly }), 403, "MissingScope");
    const readOnly = await t.key({ scopes: ["issuers.read"] });
    expect((await call(t, "GET", CONFIGS, { key: readOnly })).status).toBe(200);
    expectError(await call(t, "GET", CONFIGS), 401, "Unauthenticated");
    for (const query of ["limit=0", "limit=101", "cursor=zzz"]) {
      expectError(await call(t, "GET", `${CONFIGS}?${query}`, { key: t.adminKey }), 400, "ValidationFailed");
    }
  });
});

describe("OpenAPI", () => {
  it("documents both operations, the scopes' statuses and the spec's type names", async () => {
    const doc = (await call(t, "GET", "/openapi.json")).body;
    const create = doc.paths[CONFIGS].post;
    const list = doc.paths[CONFIGS].get;
    expect(create.operationId).toBe("CredentialConfigurations_Create");
    expect(list.operationId).toBe("CredentialConfigurations_List");
    expect(Object.keys(create.responses).sort()).toEqual(["201", "400", "401", "403", "404", "409", "429"]);
    expect(create.responses["201"].content["application/json"].schema.$ref).toBe(
      "#/components/schemas/ManagementResourceOfPublicCredentialConfigurationResponse",
    );
    expect(create.parameters.map((p: { $ref?: string }) => p.$ref)).toContain(
      "#/components/parameters/IdempotencyKey",
    );
    expect(doc.components.schemas.ClaimDefinition).toBeDefined();
  });
});
