import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, issueCredential, policyTrusting, presentTo } from "./fixtures";
import { type CallResult, call, errorCode, startTestServer, type TestServer } from "./harness";
import { fetchJson, wellKnown } from "./wallet-client";

let t: TestServer;
let otherKey: string;
let productionKey: string;
beforeAll(async () => {
  t = await startTestServer();
  otherKey = (await t.otherTenant()).key;
  productionKey = await t.key({ environment: "production" });
});
afterAll(() => t?.close());

const ISSUERS = "/management/issuers";
let orgCounter = 0;

async function createOrganisation(key = t.adminKey, reference = `org-${++orgCounter}`) {
  const r = await call(t, "POST", "/management/organisations", {
    key,
    body: { reference, displayName: `Org ${reference}` },
  });
  expect(r.status).toBe(201);
  return reference;
}

const display = [{ locale: "en", name: "Acme Bank" }];

async function createIssuer(body: Record<string, unknown> = {}, key = t.adminKey) {
  const organisationReference = (body.organisationReference as string) ?? (await createOrganisation(key));
  const r = await call(t, "POST", ISSUERS, {
    key,
    body: { organisationReference, displayName: "Acme Bank", display, ...body },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}

async function createConfiguration(issuerId: string, identifier: string, key = t.adminKey) {
  const r = await call(t, "POST", "/management/credential-configurations", {
    key,
    body: {
      identifier,
      displayName: "Membership",
      issuerId,
      schemaId: "https://schemas.example/membership",
      claims: [{ path: ["member_id"], type: "string", required: true }],
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}

function expectError(r: CallResult, status: number, code: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(errorCode(r)).toBe(code);
}

function itemsById(readiness: { items: { id: string; status: string }[] }) {
  return Object.fromEntries(readiness.items.map((i) => [i.id, i.status]));
}

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
    const row = await prisma.issuer.findUniqueOrThrow({ where: { id: issuer.id } });
    expect(JSON.stringify(row)).not.toContain('"d":');
    expect(row.privateKeyCipher).toMatch(/^v1\./);
    const opened = JSON.parse(t.server.deps.secretBox.open(row.privateKeyCipher, issuer.id));
    expect(opened).toMatchObject({ kid: issuer.signingKey.kid, x: issuer.signingKey.publicJwk.x });
    expect(typeof opened.d).toBe("string");
    expect(() => t.server.deps.secretBox.open(row.privateKeyCipher, "iss_other")).toThrow();

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

describe("Issuers_RotateSigningKey", () => {
  const rotate = (issuerId: string, body: Record<string, unknown> = {}, key = t.adminKey, headers = {}) =>
    call(t, "POST", `${ISSUERS}/${issuerId}/rotate-signing-key`, { key, body, headers });
  const kidOf = (jwt: string) => decodeProtectedHeader(jwt).kid;

  async function publishedKids(active: ActiveIssuer) {
    const md = await fetchJson(wellKnown("jwt-vc-issuer", active.credentialIssuer));
    return md.body.jwks.keys.map((k: { kid: string }) => k.kid);
  }

  it("signs with the new key; a kept key still verifies what it signed, a withdrawn one no longer does", async () => {
    const active = await activeIssuer(t, t.adminKey);
    const policy = `rotation-${active.issuerId}`;
    await policyTrusting(t, t.adminKey, policy, active);
    const before = (await call(t, "GET", `${ISSUERS}/${active.issuerId}`, { key: t.adminKey })).body.data;
    expect(before.previousSigningKeys).toEqual([]);
    const first = await issueCredential(t, t.adminKey, active);
    expect(kidOf(first.credential)).toBe(before.signingKey.kid);
    const statusUri = decodeJwt(first.credential.split("~")[0] as string).status as {
      status_list: { uri: string };
    };
    const statusKid = async () => kidOf(await (await fetch(statusUri.status_list.uri)).text());
    expect(await statusKid()).toBe(before.signingKey.kid);

    const kept = await rotate(active.issuerId);
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    const keptKid = kept.body.data.signingKey.kid;
    expect(keptKid).not.toBe(before.signingKey.kid);
    expect(kept.body.data.signingKey.publicJwk.d).toBeUndefined();
    expect(kept.body.data.previousSigningKeys).toEqual([
      { ...before.signingKey, retiredAt: expect.any(String) },
    ]);
    expect(await publishedKids(active)).toEqual([keptKid, before.signingKey.kid]);
    expect((await call(t, "GET", `${ISSUERS}/${active.issuerId}`, { key: t.adminKey })).body.data).toEqual(
      kept.body.data,
    );
    const second = await issueCredential(t, t.adminKey, active);
    expect(kidOf(second.credential)).toBe(keptKid);
    expect(await statusKid()).toBe(keptKid);
    expect((await presentTo(t, t.adminKey, policy, first)).status).toBe("verified");
    expect((await presentTo(t, t.adminKey, policy, second)).status).toBe("verified");
    // An independent JOSE implementation picks the key by kid from the published JWKS, as relying
    // parties do: both credentials' issuer signatures check out.
    const jwks = async () =>
      createLocalJWKSet((await fetchJson(wellKnown("jwt-vc-issuer", active.credentialIssuer))).body.jwks);
    const issuerJws = (credential: string) => credential.split("~")[0] as string;
    await expect(jwtVerify(issuerJws(first.credential), await jwks())).resolves.toBeDefined();
    await expect(jwtVerify(issuerJws(second.credential), await jwks())).resolves.toBeDefined();

    const withdrawn = await rotate(active.issuerId, { replacedKey: "withdraw" });
    expect(withdrawn.status).toBe(200);
    const newKid = withdrawn.body.data.signingKey.kid;
    expect(withdrawn.body.data.previousSigningKeys.map((k: { kid: string }) => k.kid)).toEqual([
      before.signingKey.kid,
    ]);
    expect(await publishedKids(active)).toEqual([newKid, before.signingKey.kid]);
    expect((await presentTo(t, t.adminKey, policy, second)).status).toBe("rejected");
    expect((await presentTo(t, t.adminKey, policy, first)).status).toBe("verified");
    await expect(jwtVerify(issuerJws(second.credential), await jwks())).rejects.toThrow(/no applicable key/i);
    await expect(jwtVerify(issuerJws(first.credential), await jwks())).resolves.toBeDefined();
    const third = await issueCredential(t, t.adminKey, active);
    expect(kidOf(third.credential)).toBe(newKid);
    expect((await presentTo(t, t.adminKey, policy, third)).status).toBe("verified");
  });

  it("replays a retried rotation (Idempotency-Key) instead of rotating twice", async () => {
    const issuer = await createIssuer();
    const headers = { "idempotency-key": `rotate-${issuer.id}` };
    const once = await rotate(issuer.id, {}, t.adminKey, headers);
    const again = await rotate(issuer.id, {}, t.adminKey, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data.signingKey).toEqual(once.body.data.signingKey);
    const now = (await call(t, "GET", `${ISSUERS}/${issuer.id}`, { key: t.adminKey })).body.data;
    expect(now.signingKey).toEqual(once.body.data.signingKey);
    expect(now.previousSigningKeys).toHaveLength(1);
    expectError(
      await rotate(issuer.id, { replacedKey: "withdraw" }, t.adminKey, headers),
      409,
      "IdempotencyKeyReused",
    );
  });

  it("keeps at most 20 replaced keys (400 PlatformLimit), and withdrawing still works then", async () => {
    const issuer = await createIssuer();
    for (let i = 0; i < 20; i++) expect((await rotate(issuer.id)).status).toBe(200);
    const full = await rotate(issuer.id);
    expectError(full, 400, "PlatformLimit");
    const after = (await call(t, "GET", `${ISSUERS}/${issuer.id}`, { key: t.adminKey })).body.data;
    expect(after.previousSigningKeys).toHaveLength(20);
    const withdrawn = await rotate(issuer.id, { replacedKey: "withdraw" });
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body.data.previousSigningKeys).toEqual(after.previousSigningKeys);
  });

  it("400 on unknown members and values; 404 unknown, foreign or bound to another issuer; 401; 403", async () => {
    const issuer = await createIssuer();
    expectError(await rotate(issuer.id, { replacedKey: "discard" }), 400, "ValidationFailed");
    expectError(await rotate(issuer.id, { overlapSeconds: 60 }), 400, "ValidationFailed");
    expectError(await rotate("iss_unknown"), 404, "NotFound");
    expectError(await rotate(issuer.id, {}, otherKey), 404, "NotFound");
    expectError(await rotate(issuer.id, {}, productionKey), 404, "NotFound");
    const other = await createIssuer();
    expectError(await rotate(issuer.id, {}, await t.key({ issuerId: other.id })), 404, "NotFound");
    const r = await call(t, "POST", `${ISSUERS}/${issuer.id}/rotate-signing-key`, { body: {} });
    expectError(r, 401, "Unauthenticated");
    expectError(await rotate(issuer.id, {}, await t.key({ scopes: ["issuers.read"] })), 403, "MissingScope");
    const unchanged = (await call(t, "GET", `${ISSUERS}/${issuer.id}`, { key: t.adminKey })).body.data;
    expect(unchanged.signingKey).toEqual(issuer.signingKey);
    expect(unchanged.previousSigningKeys).toEqual([]);
  });
});

describe("Issuers_GetReadiness and Issuers_Activate", () => {
  it("moves from outstanding to ready as requirements are met, then activates once", async () => {
    const issuer = await createIssuer({ display: undefined });
    const readinessPath = `${ISSUERS}/${issuer.id}/readiness`;
    const activatePath = `${ISSUERS}/${issuer.id}/activate`;
    const events = () =>
      t.server.database.prisma.outboxEvent.findMany({
        where: { type: "issuer.activated", tenantId: t.tenantId },
      });

    const first = await call(t, "GET", readinessPath, { key: t.adminKey });
    expect(first.status).toBe(200);
    expect(first.body.data.issuerId).toBe(issuer.id);
    expect(first.body.data.ready).toBe(false);
    expect(first.body.data.items.map((i: { id: string }) => i.id)).toEqual([
      "organisation",
      "display-metadata",
      "signing-key",
      "active-credential-configuration",
      "status-list",
      "public-base-url",
    ]);
    expect(itemsById(first.body.data)).toEqual({
      organisation: "satisfied",
      "display-metadata": "outstanding",
      "signing-key": "satisfied",
      "active-credential-configuration": "outstanding",
      "status-list": "satisfied",
      "public-base-url": "satisfied",
    });
    for (const item of first.body.data.items) {
      expect(item.title).toEqual(expect.any(String));
      expect(item.detail).toEqual(expect.any(String));
      if (item.status === "satisfied") expect(item.action).toBeUndefined();
    }
    const displayItem = first.body.data.items.find((i: { id: string }) => i.id === "display-metadata");
    expect(displayItem.action).toMatchObject({ operationId: "Issuers_Update", method: "PATCH" });

    const refused = await call(t, "POST", activatePath, { key: t.adminKey });
    expectError(refused, 409, "IssuerNotReady");
    expect(refused.body.error.details.map((d: { target: string }) => d.target)).toEqual([
      "display-metadata",
      "active-credential-configuration",
    ]);

    await call(t, "PATCH", `${ISSUERS}/${issuer.id}`, { key: t.adminKey, body: { display } });
    const second = await call(t, "GET", readinessPath, { key: t.adminKey });
    expect(itemsById(second.body.data)["display-metadata"]).toBe("satisfied");
    expect(second.body.data.ready).toBe(false);
    expect(
      (await call(t, "POST", activatePath, { key: t.adminKey })).body.error.details.map(
        (d: { target: string }) => d.target,
      ),
    ).toEqual(["active-credential-configuration"]);

    await createConfiguration(issuer.id, `ready-${issuer.id}`);
    const third = await call(t, "GET", readinessPath, { key: t.adminKey });
    expect(third.body.data.ready).toBe(true);
    expect(third.body.data.items.every((i: { status: string }) => i.status === "satisfied")).toBe(true);
    expect((await events()).filter((e) => (e.payload as any).issuerId === issuer.id)).toHaveLength(0);

    const activated = await call(t, "POST", activatePath, { key: t.adminKey });
    expect(activated.status).toBe(200);
    expect(activated.body.data.status).toBe("active");
    expect(activated.body.data.activatedAt).toEqual(expect.any(String));
    const mine = (await events()).filter((e) => (e.payload as any).issuerId === issuer.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      environment: "sandbox",
      payload: { issuerId: issuer.id, credentialIssuer: issuer.credentialIssuer },
    });

    const again = await call(t, "POST", activatePath, { key: t.adminKey });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(activated.body.data);
    expect((await events()).filter((e) => (e.payload as any).issuerId === issuer.id)).toHaveLength(1);

    const listed = await call(
      t,
      "GET",
      `${ISSUERS}?status=active&organisationReference=${issuer.organisationReference}`,
      {
        key: t.adminKey,
      },
    );
    expect(listed.body.data.map((i: { id: string }) => i.id)).toEqual([issuer.id]);
  });

  it("reports a non-https public base URL outside development mode", async () => {
    const issuer = await createIssuer();
    await createConfiguration(issuer.id, `https-${issuer.id}`);
    const config = t.server.deps.config;
    config.developmentMode = false;
    try {
      const r = await call(t, "GET", `${ISSUERS}/${issuer.id}/readiness`, { key: t.adminKey });
      expect(r.body.data.ready).toBe(false);
      expect(itemsById(r.body.data)["public-base-url"]).toBe("outstanding");
      const refused = await call(t, "POST", `${ISSUERS}/${issuer.id}/activate`, { key: t.adminKey });
      expectError(refused, 409, "IssuerNotReady");
      expect(refused.body.error.details.map((d: { target: string }) => d.target)).toEqual([
        "public-base-url",
      ]);
    } finally {
      config.developmentMode = true;
    }
  });

  it("reports a missing status list and an unusable signing key", async () => {
    const issuer = await createIssuer();
    await createConfiguration(issuer.id, `broken-${issuer.id}`);
    const prisma = t.server.database.prisma;
    await prisma.statusList.updateMany({ where: { issuerId: issuer.id }, data: { full: true } });
    const row = await prisma.issuer.findUniqueOrThrow({ where: { id: issuer.id } });
    // A key sealed for another issuer id does not open for this one.
    await prisma.issuer.update({
      where: { id: issuer.id },
      data: { privateKeyCipher: t.server.deps.secretBox.seal("{}", issuer.id) },
    });
    const r = await call(t, "GET", `${ISSUERS}/${issuer.id}/readiness`, { key: t.adminKey });
    expect(itemsById(r.body.data)).toMatchObject({
      "status-list": "outstanding",
      "signing-key": "outstanding",
    });
    await prisma.issuer.update({
      where: { id: issuer.id },
      data: { privateKeyCipher: row.privateKeyCipher },
    });
    await prisma.statusList.updateMany({ where: { issuerId: issuer.id }, data: { full: false } });
    const fixed = await call(t, "GET", `${ISSUERS}/${issuer.id}/readiness`, { key: t.adminKey });
    expect(fixed.body.data.ready).toBe(true);
  });

  it("404 for unknown, foreign and other-environment issuers; 401; 403", async () => {
    const issuer = await createIssuer();
    for (const [method, suffix] of [
      ["GET", "readiness"],
      ["POST", "activate"],
    ] as const) {
      const path = `${ISSUERS}/${issuer.id}/${suffix}`;
      expectError(
        await call(t, method, `${ISSUERS}/iss_unknown/${suffix}`, { key: t.adminKey }),
        404,
        "NotFound",
      );
      expectError(await call(t, method, path, { key: otherKey }), 404, "NotFound");
      expectError(await call(t, method, path, { key: productionKey }), 404, "NotFound");
      expectError(await call(t, method, path), 401, "Unauthenticated");
    }
    const manageOnly = await t.key({ scopes: ["issuers.manage"] });
    expectError(
      await call(t, "GET", `${ISSUERS}/${issuer.id}/readiness`, { key: manageOnly }),
      403,
      "MissingScope",
    );
    const readOnly = await t.key({ scopes: ["issuers.read"] });
    expectError(
      await call(t, "POST", `${ISSUERS}/${issuer.id}/activate`, { key: readOnly }),
      403,
      "MissingScope",
    );
    const other = await createIssuer();
    const bound = await t.key({ issuerId: other.id });
    expectError(await call(t, "GET", `${ISSUERS}/${issuer.id}/readiness`, { key: bound }), 404, "NotFound");
    expectError(await call(t, "POST", `${ISSUERS}/${issuer.id}/activate`, { key: bound }), 404, "NotFound");
    expect((await call(t, "GET", `${ISSUERS}/${other.id}/readiness`, { key: bound })).status).toBe(200);
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
