import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, issueCredential, policyTrusting, presentTo } from "./fixtures";
import { display, expectError, ISSUERS, issuersApi, itemsById } from "./fixtures/issuers-api";
import { call, startTestServer, type TestServer } from "./harness";
import { fetchJson, wellKnown } from "./wallet-client";

/** Issuers_RotateSigningKey, Issuers_GetReadiness and Issuers_Activate. */

let t: TestServer;
let otherKey: string;
let productionKey: string;
beforeAll(async () => {
  t = await startTestServer();
  otherKey = (await t.otherTenant()).key;
  productionKey = await t.key({ environment: "production" });
});
afterAll(() => t?.close());

const { createIssuer, createConfiguration } = issuersApi(() => t);

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
    const row = await prisma.issuerKey.findFirstOrThrow({
      where: { issuerId: issuer.id, purpose: "credential_signing", state: "current" },
    });
    // A key sealed for another issuer id does not open for this one.
    await prisma.issuerKey.update({
      where: { id: row.id },
      data: { privateKeyCipher: t.server.deps.secretBox.seal("{}", issuer.id) },
    });
    const r = await call(t, "GET", `${ISSUERS}/${issuer.id}/readiness`, { key: t.adminKey });
    expect(itemsById(r.body.data)).toMatchObject({
      "status-list": "outstanding",
      "signing-key": "outstanding",
    });
    await prisma.issuerKey.update({
      where: { id: row.id },
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
