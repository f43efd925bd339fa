import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activeIssuer } from "./fixtures";
import { display, expectError, ISSUERS, issuersApi } from "./fixtures/issuers-api";
import { type CallResult, call, startTestServer, type TestServer } from "./harness";
import { fetchJson, wellKnown } from "./wallet-client";

/** Issuers_Create, _Get, _List and _Update, and their OpenAPI description. */

let t: TestServer;
let otherKey: string;
let productionKey: string;
beforeAll(async () => {
  t = await startTestServer();
  otherKey = (await t.otherTenant()).key;
  productionKey = await t.key({ environment: "production" });
});
afterAll(() => t?.close());

const { createOrganisation, createIssuer } = issuersApi(() => t);

describe("Issuers_Create", () => {
  it("creates a draft issuer with a fresh ES256 key, its credential issuer URL and a status list", async () => {
    const organisationReference = await createOrganisation();
    const r = await call(t, "POST", ISSUERS, {
      key: t.adminKey,
      body: {
        organisationReference,
        displayName: "Acme Bank",
        description: "Issues membership cards.",
        logoUri: "https://acme.example/logo.png",
        display: [
          { locale: "en", name: "Acme Bank", logo: { uri: "https://acme.example/en.png", altText: "Acme" } },
          { locale: "nl-NL", name: "Acme Bank NL", description: "Bank" },
        ],
      },
    });
    expect(r.status).toBe(201);
    const issuer = r.body.data;
    expect(issuer).toMatchObject({
      organisationReference,
      displayName: "Acme Bank",
      description: "Issues membership cards.",
      logoUri: "https://acme.example/logo.png",
      status: "draft",
      environment: "sandbox",
      activatedAt: null,
      credentialIssuer: `${t.baseUrl}/issuers/${issuer.id}`,
    });
    expect(issuer.id).toMatch(/^iss_[0-9a-z]{26}$/);
    expect(issuer.display).toHaveLength(2);
    expect(issuer.signingKey.alg).toBe("ES256");
    expect(issuer.signingKey.publicJwk).toMatchObject({
      kty: "EC",
      crv: "P-256",
      kid: issuer.signingKey.kid,
    });
    expect(issuer.signingKey.publicJwk.d).toBeUndefined();
    expect(JSON.stringify(r.body)).not.toContain('"d":');
    expect(new Date(issuer.createdAt).getTime()).toBeGreaterThan(0);

    // The private key is sealed at rest, bound to the issuer id, and matches the public key.
    const prisma = t.server.database.prisma;
    const row = await prisma.issuerKey.findFirstOrThrow({
      where: { issuerId: issuer.id, purpose: "credential_signing", state: "current" },
    });
    expect(JSON.stringify(row)).not.toContain('"d":');
    expect(row.privateKeyCipher).toMatch(/^v1\./);
    const opened = JSON.parse(t.server.deps.secretBox.open(row.privateKeyCipher!, issuer.id));
    expect(opened).toMatchObject({ kid: issuer.signingKey.kid, x: issuer.signingKey.publicJwk.x });
    expect(typeof opened.d).toBe("string");
    expect(() => t.server.deps.secretBox.open(row.privateKeyCipher!, "iss_other")).toThrow();

    const lists = await prisma.statusList.findMany({ where: { issuerId: issuer.id } });
    expect(lists).toHaveLength(1);
    const size = t.server.deps.config.issuance.statusListSize;
    expect(lists[0]).toMatchObject({ bits: 2, size, allocated: 0, full: false, environment: "sandbox" });
    // Every entry valid: the bits have no chunk rows until the first revocation.
    expect(await prisma.statusListChunk.count({ where: { listId: lists[0]!.id } })).toBe(0);
  });

  it("gives each issuer its own key", async () => {
    const a = await createIssuer();
    const b = await createIssuer();
    expect(a.signingKey.kid).not.toBe(b.signingKey.kid);
  });

  it("400 on invalid bodies", async () => {
    const organisationReference = await createOrganisation();
    const bad: [Record<string, unknown>, string][] = [
      [{ organisationReference }, "displayName"],
      [{ organisationReference, displayName: "X", logoUri: "http://acme.example/logo.png" }, "logoUri"],
      [{ organisationReference, displayName: "X", display: [{ locale: "en" }] }, "display.0.name"],
      [
        { organisationReference, displayName: "X", display: [{ locale: "not a locale", name: "X" }] },
        "display.0.locale",
      ],
      [
        {
          organisationReference,
          displayName: "X",
          display: [
            { locale: "en", name: "A" },
            { locale: "EN", name: "B" },
          ],
        },
        "display",
      ],
      [{ organisationReference, displayName: "X", colour: "red" }, "colour"],
    ];
    for (const [body, target] of bad) {
      const r = await call(t, "POST", ISSUERS, { key: t.adminKey, body });
      expectError(r, 400, "ValidationFailed");
      expect(r.body.error.details.map((d: { target: string }) => d.target)).toContain(target);
    }
  });

  it("404 for an unknown organisation or one of another tenant or environment", async () => {
    const r = await call(t, "POST", ISSUERS, {
      key: t.adminKey,
      body: { organisationReference: "nobody", displayName: "X" },
    });
    expectError(r, 404, "NotFound");
    expect(r.body.error.details[0].target).toBe("organisationReference");
    const foreign = await createOrganisation(otherKey, "foreign-org");
    expectError(
      await call(t, "POST", ISSUERS, {
        key: t.adminKey,
        body: { organisationReference: foreign, displayName: "X" },
      }),
      404,
      "NotFound",
    );
    const sandboxOrg = await createOrganisation();
    expectError(
      await call(t, "POST", ISSUERS, {
        key: productionKey,
        body: { organisationReference: sandboxOrg, displayName: "X" },
      }),
      404,
      "NotFound",
    );
  });

  it("401 without a key, 403 without issuers.manage or with an issuer-bound key", async () => {
    const organisationReference = await createOrganisation();
    const body = { organisationReference, displayName: "X" };
    expectError(await call(t, "POST", ISSUERS, { body }), 401, "Unauthenticated");
    const readOnly = await t.key({ scopes: ["issuers.read", "organisations.manage"] });
    expectError(await call(t, "POST", ISSUERS, { key: readOnly, body }), 403, "MissingScope");
    const own = await createIssuer();
    const bound = await t.key({ issuerId: own.id });
    expectError(await call(t, "POST", ISSUERS, { key: bound, body }), 403, "IssuerBindingMismatch");
  });

  it("accepts Idempotency-Key: replays, and 409 for another payload", async () => {
    const organisationReference = await createOrganisation();
    const headers = { "idempotency-key": "issuer-create-1" };
    const body = { organisationReference, displayName: "Once" };
    const first = await call(t, "POST", ISSUERS, { key: t.adminKey, body, headers });
    expect(first.status).toBe(201);
    const again = await call(t, "POST", ISSUERS, { key: t.adminKey, body, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const count = await t.server.database.prisma.issuer.count({ where: { displayName: "Once" } });
    expect(count).toBe(1);
    expectError(
      await call(t, "POST", ISSUERS, { key: t.adminKey, body: { ...body, displayName: "Twice" }, headers }),
      409,
      "IdempotencyKeyReused",
    );
  });
});

describe("Issuers_Get", () => {
  it("returns the issuer", async () => {
    const issuer = await createIssuer();
    const r = await call(t, "GET", `${ISSUERS}/${issuer.id}`, { key: t.adminKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(issuer);
  });

  it("404 for an unknown id, another tenant's or environment's issuer", async () => {
    const issuer = await createIssuer();
    expectError(await call(t, "GET", `${ISSUERS}/iss_unknown`, { key: t.adminKey }), 404, "NotFound");
    expectError(await call(t, "GET", `${ISSUERS}/${issuer.id}`, { key: otherKey }), 404, "NotFound");
    expectError(await call(t, "GET", `${ISSUERS}/${issuer.id}`, { key: productionKey }), 404, "NotFound");
  });

  it("lets an issuer-bound key see its own issuer only", async () => {
    const mine = await createIssuer();
    const theirs = await createIssuer();
    const bound = await t.key({ issuerId: mine.id, scopes: ["issuers.read"] });
    expect((await call(t, "GET", `${ISSUERS}/${mine.id}`, { key: bound })).status).toBe(200);
    expectError(await call(t, "GET", `${ISSUERS}/${theirs.id}`, { key: bound }), 404, "NotFound");
  });

  it("401 and 403", async () => {
    const issuer = await createIssuer();
    expectError(await call(t, "GET", `${ISSUERS}/${issuer.id}`), 401, "Unauthenticated");
    const key = await t.key({ scopes: ["issuers.manage"] });
    expectError(await call(t, "GET", `${ISSUERS}/${issuer.id}`, { key }), 403, "MissingScope");
  });
});

describe("Issuers_List", () => {
  it("pages in a stable order and filters by organisation and status", async () => {
    const key = await t.key({ environment: "production" });
    const orgA = await createOrganisation(key, "list-a");
    const orgB = await createOrganisation(key, "list-b");
    const ids: string[] = [];
    for (const org of [orgA, orgA, orgB, orgA, orgB]) {
      ids.push((await createIssuer({ organisationReference: org }, key)).id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: CallResult = await call(
        t,
        "GET",
        `${ISSUERS}?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
        {
          key,
        },
      );
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((i: { id: string }) => i.id));
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(ids);
    expect(pages).toBe(3);

    const byOrg = await call(t, "GET", `${ISSUERS}?organisationReference=${orgB}`, { key });
    expect(byOrg.body.data.map((i: { id: string }) => i.id)).toEqual([ids[2], ids[4]]);
    expect(byOrg.body.nextCursor).toBeNull();
    const unknownOrg = await call(t, "GET", `${ISSUERS}?organisationReference=nobody`, { key });
    expect(unknownOrg.body).toEqual({ data: [], nextCursor: null });
    const drafts = await call(t, "GET", `${ISSUERS}?status=draft&organisationReference=${orgA}`, { key });
    expect(drafts.body.data).toHaveLength(3);
    const active = await call(t, "GET", `${ISSUERS}?status=active`, { key });
    expect(active.body.data).toEqual([]);
  });

  it("shows no issuers of another tenant or environment, and only its own to an issuer-bound key", async () => {
    const mine = await createIssuer();
    await createIssuer();
    const other = await call(t, "GET", ISSUERS, { key: otherKey });
    expect(other.status).toBe(200);
    expect(other.body.data.map((i: { id: string }) => i.id)).not.toContain(mine.id);
    const production = await call(t, "GET", `${ISSUERS}?limit=100`, { key: productionKey });
    expect(production.body.data.every((i: { environment: string }) => i.environment === "production")).toBe(
      true,
    );
    const bound = await t.key({ issuerId: mine.id, scopes: ["issuers.read"] });
    const list = await call(t, "GET", ISSUERS, { key: bound });
    expect(list.body.data.map((i: { id: string }) => i.id)).toEqual([mine.id]);
  });

  it("400 on bad filters, limit or cursor; 401; 403", async () => {
    for (const query of ["status=retired", "limit=0", "limit=101", "cursor=zzz"]) {
      expectError(await call(t, "GET", `${ISSUERS}?${query}`, { key: t.adminKey }), 400, "ValidationFailed");
    }
    expectError(await call(t, "GET", ISSUERS), 401, "Unauthenticated");
    const key = await t.key({ scopes: ["organisations.read"] });
    expectError(await call(t, "GET", ISSUERS, { key }), 403, "MissingScope");
  });
});

describe("Issuers_Update", () => {
  it("applies a JSON merge patch: absent unchanged, null clears, arrays replaced", async () => {
    const issuer = await createIssuer({
      description: "Old",
      logoUri: "https://acme.example/old.png",
    });
    const path = `${ISSUERS}/${issuer.id}`;
    const renamed = await call(t, "PATCH", path, { key: t.adminKey, body: { displayName: "Acme Bank NV" } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({
      displayName: "Acme Bank NV",
      description: "Old",
      logoUri: "https://acme.example/old.png",
      display,
      signingKey: issuer.signingKey,
      status: "draft",
    });

    const cleared = await call(t, "PATCH", path, {
      key: t.adminKey,
      body: { description: null, logoUri: null, display: [{ locale: "de", name: "Acme Bank DE" }] },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toMatchObject({
      displayName: "Acme Bank NV",
      description: null,
      logoUri: null,
      display: [{ locale: "de", name: "Acme Bank DE" }],
    });
    const noDisplay = await call(t, "PATCH", path, { key: t.adminKey, body: { display: null } });
    expect(noDisplay.body.data.display).toEqual([]);

    const unchanged = await call(t, "PATCH", path, { key: t.adminKey, body: {} });
    expect(unchanged.status).toBe(200);
    expect(unchanged.body.data).toEqual(noDisplay.body.data);
    expect((await call(t, "GET", path, { key: t.adminKey })).body.data).toEqual(noDisplay.body.data);

    const newOrg = await createOrganisation();
    const moved = await call(t, "PATCH", path, { key: t.adminKey, body: { organisationReference: newOrg } });
    expect(moved.body.data.organisationReference).toBe(newOrg);
  });

  it("an active issuer's wallet metadata shows the patched display at once", async () => {
    const active = await activeIssuer(t, t.adminKey);
    const metadata = async () =>
      (await fetchJson(wellKnown("openid-credential-issuer", active.credentialIssuer))).body.display;
    expect(await metadata()).toEqual([expect.objectContaining({ name: expect.stringMatching(/^Issuer /) })]);
    const patched = await call(t, "PATCH", `${ISSUERS}/${active.issuerId}`, {
      key: t.adminKey,
      body: { display: [{ locale: "en", name: "Renamed issuer" }] },
    });
    expect(patched.status).toBe(200);
    expect(await metadata()).toEqual([expect.objectContaining({ locale: "en", name: "Renamed issuer" })]);
  });

  it("400 ReadOnlyField naming each read-only member", async () => {
    const issuer = await createIssuer();
    const path = `${ISSUERS}/${issuer.id}`;
    const readOnly: Record<string, unknown> = {
      id: "iss_x",
      status: "active",
      signingKey: { kid: "x" },
      kid: "x",
      publicJwk: {},
      credentialIssuer: "https://evil.example",
      createdAt: "2020-01-01T00:00:00Z",
      activatedAt: null,
    };
    for (const [field, value] of Object.entries(readOnly)) {
      const r = await call(t, "PATCH", path, { key: t.adminKey, body: { displayName: "Y", [field]: value } });
      expectError(r, 400, "ReadOnlyField");
      expect(r.body.error.message).toContain(field);
      expect(r.body.error.details).toEqual([
        expect.objectContaining({ code: "ReadOnlyField", target: field }),
      ]);
    }
    const after = await call(t, "GET", path, { key: t.adminKey });
    expect(after.body.data).toEqual(issuer);
  });

  it("400 on invalid values and unknown members", async () => {
    const issuer = await createIssuer();
    const path = `${ISSUERS}/${issuer.id}`;
    for (const body of [
      { displayName: null },
      { displayName: "" },
      { organisationReference: null },
      { logoUri: "ftp://acme.example/x" },
      { display: [{ locale: "en" }] },
      { colour: "red" },
    ]) {
      expectError(await call(t, "PATCH", path, { key: t.adminKey, body }), 400, "ValidationFailed");
    }
  });

  it("404 for unknown or foreign issuers and unknown organisations; 401; 403", async () => {
    const issuer = await createIssuer();
    const path = `${ISSUERS}/${issuer.id}`;
    const body = { displayName: "Z" };
    expectError(await call(t, "PATCH", `${ISSUERS}/iss_unknown`, { key: t.adminKey, body }), 404, "NotFound");
    expectError(await call(t, "PATCH", path, { key: otherKey, body }), 404, "NotFound");
    expectError(await call(t, "PATCH", path, { key: productionKey, body }), 404, "NotFound");
    const other = await createIssuer();
    const bound = await t.key({ issuerId: other.id });
    expectError(await call(t, "PATCH", path, { key: bound, body }), 404, "NotFound");
    expectError(
      await call(t, "PATCH", path, { key: t.adminKey, body: { organisationReference: "nobody" } }),
      404,
      "NotFound",
    );
    expectError(await call(t, "PATCH", path, { body }), 401, "Unauthenticated");
    const readKey = await t.key({ scopes: ["issuers.read"] });
    expectError(await call(t, "PATCH", path, { key: readKey, body }), 403, "MissingScope");
    expect((await call(t, "GET", path, { key: t.adminKey })).body.data.displayName).toBe("Acme Bank");
  });
});

describe("OpenAPI", () => {
  it("documents the issuer operations with their statuses", async () => {
    const doc = (await call(t, "GET", "/openapi.json")).body;
    const ops = {
      Issuers_Create: doc.paths["/management/issuers"].post,
      Issuers_List: doc.paths["/management/issuers"].get,
      Issuers_Get: doc.paths["/management/issuers/{issuerId}"].get,
      Issuers_Update: doc.paths["/management/issuers/{issuerId}"].patch,
      Issuers_Activate: doc.paths["/management/issuers/{issuerId}/activate"].post,
      Issuers_GetReadiness: doc.paths["/management/issuers/{issuerId}/readiness"].get,
    };
    for (const [id, op] of Object.entries(ops)) expect(op.operationId).toBe(id);
    expect(Object.keys(ops.Issuers_Create.responses)).toEqual(
      expect.arrayContaining(["201", "400", "401", "403", "404", "409", "429"]),
    );
    expect(Object.keys(ops.Issuers_GetReadiness.responses).sort()).toEqual([
      "200",
      "400",
      "401",
      "403",
      "404",
      "429",
    ]);
    expect(Object.keys(ops.Issuers_Activate.responses)).toContain("409");
  });
});
