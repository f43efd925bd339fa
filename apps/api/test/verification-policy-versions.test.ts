import { presentWithTestWallet } from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, issueCredential } from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

/**
 * VerificationPolicies_CreateVersion, _ActivateVersion and _GetVersion (extensions of the contract,
 * docs/api/verification.md): a policy is changed by a new version, as credential configurations are;
 * sessions keep what they were created with. And a policy that asks for no claims is refused.
 */

const BASE = "/management/verification-policies";

let t: TestServer;
let issuer: ActiveIssuer;

beforeAll(async () => {
  t = await startTestServer();
  issuer = await activeIssuer(t, t.adminKey);
});
afterAll(() => t?.close());

const content = (overrides: Record<string, unknown> = {}, claims: unknown = [["given_name"]]) => ({
  displayName: "Badge check",
  purpose: "Door access",
  credentials: [
    {
      id: "badge",
      credentialTypes: [issuer.credentialType],
      trustedIssuers: [{ issuerId: issuer.issuerId }],
      requiredClaims: claims,
    },
  ],
  ...overrides,
});

async function policy(identifier: string, key = t.adminKey) {
  const r = await call(t, "POST", BASE, { key, body: { identifier, ...content() } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}

const newVersion = (identifier: string, body: unknown, key = t.adminKey, headers?: Record<string, string>) =>
  call(t, "POST", `${BASE}/${identifier}/versions`, { key, body, headers });

describe("VerificationPolicies_Create makes version 1", () => {
  it("answers activeVersion 1 and one active version", async () => {
    const created = await policy("v-one");
    expect(created.activeVersion).toBe(1);
    expect(created.versions).toEqual([
      {
        version: 1,
        status: "active",
        reason: null,
        createdAt: created.createdAt,
        activatedAt: created.createdAt,
      },
    ]);
  });
});

describe("A policy that asks for no claims", () => {
  it.each([
    ["no claim lists at all", undefined],
    ["empty claim lists", []],
  ])("400 ValidationFailed on create (%s), with a message that says what to do", async (_, claims) => {
    const body = { identifier: `no-claims-${claims ? "empty" : "absent"}`, ...content({}, claims) };
    if (claims === undefined) delete (body.credentials[0] as Record<string, unknown>).requiredClaims;
    const r = await call(t, "POST", BASE, { key: t.adminKey, body });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("ValidationFailed");
    expect(r.body.error.details).toEqual([
      expect.objectContaining({
        target: "credentials",
        message: expect.stringContaining("The policy asks for no claims"),
      }),
    ]);
    expect((await call(t, "GET", `${BASE}/${body.identifier}`, { key: t.adminKey })).status).toBe(404);
  });

  it("is accepted when one credential asks for an optional claim only", async () => {
    const body = { identifier: "optional-only", ...content({}, []) };
    (body.credentials[0] as Record<string, unknown>).optionalClaims = [["family_name"]];
    expect((await call(t, "POST", BASE, { key: t.adminKey, body })).status).toBe(201);
  });

  it("400 on a new version too, and the active version stays", async () => {
    await policy("no-claims-version");
    const r = await newVersion("no-claims-version", content({}, []));
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("ValidationFailed");
    expect(r.body.error.details[0].message).toContain("asks for no claims");
    const read = await call(t, "GET", `${BASE}/no-claims-version`, { key: t.adminKey });
    expect(read.body.data.activeVersion).toBe(1);
    expect(read.body.data.versions).toHaveLength(1);
  });
});

describe("VerificationPolicies_CreateVersion", () => {
  it("201: the next version, active at once; Get shows its content; GetVersion reads either", async () => {
    await policy("v-change");
    const r = await newVersion(
      "v-change",
      content({ displayName: "Badge check v2", purpose: "Lift access", reason: "Asks for the family name" }, [
        ["family_name"],
      ]),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data).toMatchObject({
      identifier: "v-change",
      displayName: "Badge check v2",
      purpose: "Lift access",
      status: "active",
      activeVersion: 2,
      rules: { credentials: [{ id: "badge", requiredClaims: [["family_name"]] }] },
    });
    expect(
      r.body.data.versions.map((v: { version: number; status: string; reason: string }) => [
        v.version,
        v.status,
        v.reason,
      ]),
    ).toEqual([
      [1, "superseded", null],
      [2, "active", "Asks for the family name"],
    ]);
    const read = await call(t, "GET", `${BASE}/v-change`, { key: t.adminKey });
    expect(read.body.data).toEqual(r.body.data);

    const v1 = await call(t, "GET", `${BASE}/v-change/versions/1`, { key: t.adminKey });
    expect(v1.status).toBe(200);
    expect(v1.body.data).toMatchObject({
      version: 1,
      status: "superseded",
      displayName: "Badge check",
      purpose: "Door access",
      rules: { credentials: [{ requiredClaims: [["given_name"]] }] },
    });
    const missing = await call(t, "GET", `${BASE}/v-change/versions/3`, { key: t.adminKey });
    expect(missing.status).toBe(404);
    errorCode(missing);
  });

  it("keeps a suspended policy suspended", async () => {
    await policy("v-suspended");
    await call(t, "POST", `${BASE}/v-suspended/suspend`, { key: t.adminKey });
    const r = await newVersion("v-suspended", content({}, [["family_name"]]));
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ status: "suspended", activeVersion: 2 });
  });

  it("replays with the same Idempotency-Key (no third version), 409 for the key with another body", async () => {
    await policy("v-idem");
    const headers = { "idempotency-key": "policy-version-1" };
    const first = await newVersion("v-idem", content({}, [["family_name"]]), t.adminKey, headers);
    const again = await newVersion("v-idem", content({}, [["family_name"]]), t.adminKey, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.data.activeVersion).toBe(2);
    expect(again.body.data.versions).toHaveLength(2);
    const other = await newVersion("v-idem", content({}, [["birthdate"]]), t.adminKey, headers);
    expect(other.status).toBe(409);
    errorCode(other);
  });

  it.each([
    ["an unknown member", { colour: "red" }, "ValidationFailed"],
    ["the identifier (it is the path key)", { identifier: "renamed" }, "ValidationFailed"],
    [
      "a credential type unknown here",
      {
        credentials: [
          {
            id: "x",
            credentialTypes: ["https://nowhere.example/vct"],
            trustedIssuers: [{ issuerId: "iss_unknown" }],
            requiredClaims: [["a"]],
          },
        ],
      },
      "ValidationFailed",
    ],
    ["a session lifetime out of range", { sessionLifetimeSeconds: 5 }, "ValidationFailed"],
  ])("400 for %s", async (_, overrides, code) => {
    await policy(`v-bad-${Object.keys(overrides)[0]}`);
    const r = await newVersion(`v-bad-${Object.keys(overrides)[0]}`, content(overrides));
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe(code);
  });

  it("404 for an unknown policy", async () => {
    const r = await newVersion("no-such-policy", content());
    expect(r.status).toBe(404);
    expect(errorCode(r)).toBe("NotFound");
  });

  it("401 without a key, 403 for a key with verification-policies.read only", async () => {
    await policy("v-auth");
    const anonymous = await newVersion("v-auth", content(), "");
    expect(anonymous.status).toBe(401);
    errorCode(anonymous);
    const reader = await t.key({ scopes: ["verification-policies.read"] });
    const r = await newVersion("v-auth", content(), reader);
    expect(r.status).toBe(403);
    errorCode(r);
    const activate = await call(t, "POST", `${BASE}/v-auth/versions/1/activate`, { key: reader });
    expect(activate.status).toBe(403);
    // Reading a version needs the read scope only.
    expect((await call(t, "GET", `${BASE}/v-auth/versions/1`, { key: reader })).status).toBe(200);
  });

  it("404 across tenants and across environments, for every version operation", async () => {
    await policy("v-isolated");
    const other = await t.otherTenant();
    const production = await t.key({ environment: "production" });
    for (const key of [other.key, production]) {
      for (const r of [
        await newVersion("v-isolated", content(), key),
        await call(t, "POST", `${BASE}/v-isolated/versions/1/activate`, { key }),
        await call(t, "GET", `${BASE}/v-isolated/versions/1`, { key }),
      ]) {
        expect(r.status).toBe(404);
        expect(errorCode(r)).toBe("NotFound");
      }
    }
    const read = await call(t, "GET", `${BASE}/v-isolated`, { key: t.adminKey });
    expect(read.body.data.activeVersion).toBe(1);
  });

  it("is audited against the policy", async () => {
    await policy("v-audited");
    await newVersion("v-audited", content({}, [["family_name"]]));
    const events = await call(
      t,
      "GET",
      "/management/audit-events?operation=VerificationPolicies_CreateVersion&targetId=v-audited",
      { key: t.adminKey },
    );
    expect(events.body.data.map((e: { target: unknown }) => e.target)).toEqual([
      { type: "verificationPolicy", id: "v-audited" },
    ]);
  });
});

describe("VerificationPolicies_ActivateVersion", () => {
  it("rolls back to version 1 and forward again; activating the active one changes nothing", async () => {
    await policy("v-rollback");
    await newVersion("v-rollback", content({ displayName: "Second" }, [["family_name"]]));
    const back = await call(t, "POST", `${BASE}/v-rollback/versions/1/activate`, { key: t.adminKey });
    expect(back.status).toBe(200);
    expect(back.body.data).toMatchObject({
      activeVersion: 1,
      displayName: "Badge check",
      rules: { credentials: [{ requiredClaims: [["given_name"]] }] },
    });
    const same = await call(t, "POST", `${BASE}/v-rollback/versions/1/activate`, { key: t.adminKey });
    expect(same.body.data).toEqual(back.body.data);
    const forward = await call(t, "POST", `${BASE}/v-rollback/versions/2/activate`, { key: t.adminKey });
    expect(forward.body.data).toMatchObject({ activeVersion: 2, displayName: "Second" });
    const events = await t.server.database.prisma.outboxEvent.findMany({
      where: { type: "verification_policy.version_activated", tenantId: t.tenantId },
      orderBy: [{ occurredAt: "asc" }, { id: "asc" }],
    });
    const mine = events.map(
      (e) => e.payload as { identifier: string; version: number; previousVersion: number },
    );
    expect(
      mine.filter((e) => e.identifier === "v-rollback").map((e) => [e.previousVersion, e.version]),
    ).toEqual([
      [1, 2],
      [2, 1],
      [1, 2],
    ]);
  });

  it("404 for a version the policy does not have, 400 for one that is not a number", async () => {
    await policy("v-unknown-version");
    const r = await call(t, "POST", `${BASE}/v-unknown-version/versions/7/activate`, { key: t.adminKey });
    expect(r.status).toBe(404);
    expect(errorCode(r)).toBe("NotFound");
    const nan = await call(t, "POST", `${BASE}/v-unknown-version/versions/two/activate`, { key: t.adminKey });
    expect(nan.status).toBe(400);
    expect(errorCode(nan)).toBe("ValidationFailed");
  });
});

describe("sessions keep the version they were created with", () => {
  it("a session started under version 1 is judged by version 1 after version 2 is active; a new one runs under version 2", async () => {
    await policy("v-sessions");
    const issued = await issueCredential(t, t.adminKey, issuer);
    const before = await call(t, "POST", "/v1.0/verifications", {
      key: t.adminKey,
      body: { policy: "v-sessions" },
    });
    expect(before.status).toBe(201);
    await newVersion("v-sessions", content({ purpose: "Lift access" }, [["family_name"]]));
    const after = await call(t, "POST", "/v1.0/verifications", {
      key: t.adminKey,
      body: { policy: "v-sessions" },
    });
    expect(before.body.data.purpose).toBe("Door access");
    expect(after.body.data.purpose).toBe("Lift access");

    for (const session of [before, after]) {
      await presentWithTestWallet({
        authorizationRequestUri: session.body.data.authorizationRequestUri,
        fetch: (input, init) => fetch(input, init),
        holderPrivateKey: issued.holder.privateJwk,
        credential: issued.credential,
      });
    }
    const decided = async (id: string) =>
      (await call(t, "GET", `/v1.0/verification-sessions/${id}`, { key: t.adminKey })).body.data;
    const old = await decided(before.body.data.id);
    const fresh = await decided(after.body.data.id);
    expect(old.status).toBe("verified");
    expect(fresh.status).toBe("verified");
    expect(JSON.stringify(old.result)).toContain("Erika");
    expect(JSON.stringify(old.result)).not.toContain("Mustermann");
    expect(JSON.stringify(fresh.result)).toContain("Mustermann");
    expect(JSON.stringify(fresh.result)).not.toContain("Erika");
  });
});
