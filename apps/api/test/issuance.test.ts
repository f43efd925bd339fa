import { createHash } from "node:crypto";
import { get as httpGet, type IncomingHttpHeaders } from "node:http";
import { gunzipSync } from "node:zlib";
import {
  decodeStatusList,
  getStatus,
  importEs256PublicKey,
  verifySdJwtVc,
  verifyStatusListToken,
} from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, EMPLOYEE_CLAIMS, VALID_CLAIMS } from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import {
  fetchJson,
  holderKey,
  nonce,
  proof,
  redeemOffer,
  requestCredential,
  resolveOffer,
  token,
  wellKnown,
} from "./wallet-client";

let t: TestServer;
let issuer: ActiveIssuer;
const PATH = "/v1.0/issuance-transactions";
const PRE_AUTH = "urn:ietf:params:oauth:grant-type:pre-authorized_code";

beforeAll(async () => {
  t = await startTestServer();
  issuer = await activeIssuer(t, t.adminKey);
});
afterAll(() => t?.close());

const body = (extra: Record<string, unknown> = {}) => ({
  credentialConfiguration: issuer.configuration,
  issuerId: issuer.issuerId,
  claims: VALID_CLAIMS,
  ...extra,
});

async function create(extra: Record<string, unknown> = {}, key = t.adminKey) {
  const r = await call(t, "POST", PATH, { key, body: body(extra) });
  if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  return r.body.data;
}

async function issuerKey() {
  const doc = await fetchJson(wellKnown("jwt-vc-issuer", issuer.credentialIssuer));
  expect(doc.body.issuer).toBe(issuer.credentialIssuer);
  return importEs256PublicKey(doc.body.jwks.keys[0]);
}

describe("IssuanceTransactions_Create", () => {
  it("invocation haip links the offer with haip-vci://, by reference and by value, on create and on read", async () => {
    const byReference = await create({ delivery: { invocation: "haip" } });
    expect(byReference.credentialOffer).toBe(
      `haip-vci://?credential_offer_uri=${encodeURIComponent(byReference.credentialOfferUri)}`,
    );
    const read = await call(t, "GET", `${PATH}/${byReference.id}`, { key: t.adminKey });
    expect(read.body.data.credentialOffer).toBe(byReference.credentialOffer);
    const byValue = await create({ delivery: { invocation: "haip", offerBy: "value" } });
    expect(byValue.credentialOffer).toMatch(/^haip-vci:\/\/\?credential_offer=%7B/);
    expect((await create()).credentialOffer).toMatch(/^openid-credential-offer:\/\/\?credential_offer_uri=/);
    const bad = await call(t, "POST", PATH, {
      key: t.adminKey,
      body: body({ delivery: { invocation: "haip-vci" } }),
    });
    expect([bad.status, errorCode(bad)]).toEqual([400, "ValidationFailed"]);
  });

  it("201 with an offer by reference, unique per offer", async () => {
    const r = await call(t, "POST", PATH, { key: t.adminKey, body: body({ callbackReference: "order-1" }) });
    expect(r.status).toBe(201);
    expect(r.headers.get("x-correlation-id")).toBeTruthy();
    const tx = r.body.data;
    expect(tx).toMatchObject({
      status: "pending",
      issuerId: issuer.issuerId,
      credentialConfiguration: issuer.configuration,
    });
    expect(tx.credentialOffer).toMatch(/^openid-credential-offer:\/\/\?credential_offer_uri=/);
    expect(tx.txCode).toBeNull();
    const other = await create();
    expect(other.credentialOfferUri).not.toBe(tx.credentialOfferUri);
    const offerRes = await fetch(tx.credentialOfferUri);
    expect(offerRes.headers.get("content-type")).toMatch(/^application\/json/);
    const offer = (await offerRes.json()) as any;
    expect(offer.credential_issuer).toBe(issuer.credentialIssuer);
    expect(offer.credential_configuration_ids).toEqual([issuer.configuration]);
    expect(offer.grants[PRE_AUTH]["pre-authorized_code"]).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    // The first fetch is served from what the create remembered, a second one from the database.
    expect(await (await fetch(tx.credentialOfferUri)).json()).toEqual(offer);
  });

  it("201 with an offer by value and a tx_code returned once", async () => {
    const tx = await create({
      delivery: { offerBy: "value", txCode: { inputMode: "numeric", length: 6, description: "By SMS" } },
    });
    expect(tx.credentialOfferUri).toBeNull();
    expect(tx.txCode).toMatch(/^\d{6}$/);
    const offer = await resolveOffer(tx.credentialOffer);
    expect(offer.grants[PRE_AUTH].tx_code).toEqual({
      input_mode: "numeric",
      length: 6,
      description: "By SMS",
    });
    const read = await call(t, "GET", `${PATH}/${tx.id}`, { key: t.adminKey });
    expect(read.body.data.txCode).toBeNull();
    expect(read.body.data.credentialOffer).toBe(tx.credentialOffer);
  });

  it("400 UnknownClaim naming the path", async () => {
    const r = await call(t, "POST", PATH, {
      key: t.adminKey,
      body: body({ claims: { ...VALID_CLAIMS, address: { country: "DE", city: "Berlin" } } }),
    });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("UnknownClaim");
    expect(r.body.error.details[0].target).toBe("claims.address.city");
  });

  it("400 for invalid claims, with details", async () => {
    const r = await call(t, "POST", PATH, {
      key: t.adminKey,
      body: body({ claims: { family_name: 7, birthdate: "26.01.1984", address: { country: "de" } } }),
    });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("ValidationFailed");
    expect(r.body.error.details.map((d: { target: string }) => d.target).sort()).toEqual(
      ["claims.address.country", "claims.birthdate", "claims.family_name", "claims.given_name"].sort(),
    );
  });

  it("400 for a malformed body", async () => {
    const r = await call(t, "POST", PATH, { key: t.adminKey, body: { issuerId: issuer.issuerId } });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("ValidationFailed");
  });

  it("401 without a key and 403 without credentials.issue", async () => {
    expect((await call(t, "POST", PATH, { body: body() })).status).toBe(401);
    const reader = await t.key({ scopes: ["credentials.read"] });
    const r = await call(t, "POST", PATH, { key: reader, body: body() });
    expect(r.status).toBe(403);
    expect(errorCode(r)).toBe("MissingScope");
  });

  it("404 for an unknown configuration or another tenant's issuer", async () => {
    const r = await call(t, "POST", PATH, {
      key: t.adminKey,
      body: body({ credentialConfiguration: "nope" }),
    });
    expect(r.status).toBe(404);
    const other = await t.otherTenant();
    const foreign = await call(t, "POST", PATH, { key: other.key, body: body() });
    expect(foreign.status).toBe(404);
    const production = await t.key({ environment: "production" });
    expect((await call(t, "POST", PATH, { key: production, body: body() })).status).toBe(404);
  });

  it("409 when the issuer is not active", async () => {
    const org = await call(t, "POST", "/management/organisations", {
      key: t.adminKey,
      body: { reference: "draft-org", displayName: "D" },
    });
    const draft = await call(t, "POST", "/management/issuers", {
      key: t.adminKey,
      body: { organisationReference: org.body.data.reference, displayName: "Draft" },
    });
    const cfg = await call(t, "POST", "/management/credential-configurations", {
      key: t.adminKey,
      body: {
        identifier: "draft-cfg",
        displayName: "D",
        issuerId: draft.body.data.id,
        schemaId: "s",
        claims: [],
      },
    });
    expect(cfg.status).toBe(201);
    const r = await call(t, "POST", PATH, {
      key: t.adminKey,
      body: { credentialConfiguration: "draft-cfg", issuerId: draft.body.data.id, claims: {} },
    });
    expect(r.status).toBe(409);
    expect(errorCode(r)).toBe("IssuerNotActive");
  });

  it("409 when the issuer is not authorised for the configuration", async () => {
    const second = await activeIssuer(t, t.adminKey);
    const r = await call(t, "POST", PATH, { key: t.adminKey, body: body({ issuerId: second.issuerId }) });
    expect(r.status).toBe(409);
    expect(errorCode(r)).toBe("IssuerNotAuthorised");
  });

  it("Idempotency-Key replays and refuses another payload (409)", async () => {
    const headers = { "idempotency-key": "itx-1" };
    const first = await call(t, "POST", PATH, { key: t.adminKey, body: body(), headers });
    const again = await call(t, "POST", PATH, { key: t.adminKey, body: body(), headers });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data.id).toBe(first.body.data.id);
    const other = await call(t, "POST", PATH, {
      key: t.adminKey,
      body: body({ callbackReference: "x" }),
      headers,
    });
    expect(other.status).toBe(409);
    expect(errorCode(other)).toBe("IdempotencyKeyReused");
    const count = await t.server.database.prisma.issuanceTransaction.count({
      where: { id: first.body.data.id },
    });
    expect(count).toBe(1);
  });

  it("keeps a replayable response sealed: the tx_code and the offer's code are not stored in plain text", async () => {
    const headers = { "idempotency-key": "itx-sealed" };
    const payload = body({
      delivery: { offerBy: "value", txCode: { inputMode: "numeric", length: 8 } },
    });
    const first = await call(t, "POST", PATH, { key: t.adminKey, body: payload, headers });
    expect(first.status).toBe(201);
    const { txCode, credentialOffer } = first.body.data;
    const stored = await t.server.database.prisma.idempotencyRecord.findFirstOrThrow({
      where: { key: "itx-sealed" },
    });
    const text = JSON.stringify(stored.responseBody);
    expect(text).not.toContain(txCode);
    expect(text).not.toContain(first.body.data.id);
    const code = (await resolveOffer(credentialOffer)).grants[PRE_AUTH]["pre-authorized_code"];
    expect(text).not.toContain(code);
    const again = await call(t, "POST", PATH, { key: t.adminKey, body: payload, headers });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
  });

  it("issuer-bound keys use their issuer and may not name another", async () => {
    const bound = await t.key({
      issuerId: issuer.issuerId,
      scopes: ["credentials.issue", "credentials.read"],
    });
    const r = await call(t, "POST", PATH, {
      key: bound,
      body: { credentialConfiguration: issuer.configuration, claims: VALID_CLAIMS },
    });
    expect(r.status).toBe(201);
    expect(r.body.data.issuerId).toBe(issuer.issuerId);
    const second = await activeIssuer(t, t.adminKey);
    const mismatch = await call(t, "POST", PATH, { key: bound, body: body({ issuerId: second.issuerId }) });
    expect(mismatch.status).toBe(403);
  });

  it("an Idempotency-Key does not replay another caller's issuer to an issuer-bound key", async () => {
    const second = await activeIssuer(t, t.adminKey);
    const headers = { "idempotency-key": "order-42" };
    const payload = body({
      issuerId: second.issuerId,
      credentialConfiguration: second.configuration,
      delivery: { txCode: { inputMode: "numeric", length: 6 } },
    });
    const first = await call(t, "POST", PATH, { key: t.adminKey, body: payload, headers });
    expect(first.status).toBe(201);
    const bound = await t.key({ issuerId: issuer.issuerId, scopes: ["credentials.issue"] });
    const replay = await call(t, "POST", PATH, { key: bound, body: payload, headers });
    expect(replay.status).toBe(409);
    expect(errorCode(replay)).toBe("IdempotencyKeyReused");
    expect(JSON.stringify(replay.body)).not.toContain(first.body.data.txCode);
  });

  it("writes issuance.transaction.created to the outbox without claims", async () => {
    const tx = await create({ externalSubjectReference: "crm-1" });
    const events = await t.server.database.prisma.outboxEvent.findMany({
      where: { type: "issuance.transaction.created" },
    });
    const event = events.find((e) => (e.payload as { transactionId: string }).transactionId === tx.id);
    expect(event?.payload).toMatchObject({ transactionId: tx.id, externalSubjectReference: "crm-1" });
    expect(JSON.stringify(event?.payload)).not.toContain("Mustermann");
  });
});

describe("request bodies", () => {
  it("are never coerced: a string where a boolean belongs is a 400, not true", async () => {
    const r = await call(t, "POST", "/management/credential-configurations", {
      key: t.adminKey,
      body: {
        identifier: "coerce-check",
        displayName: "C",
        issuerId: issuer.issuerId,
        schemaId: "s",
        holderBindingRequired: "false",
      },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.details[0].target).toBe("holderBindingRequired");
  });
  it("accept application/merge-patch+json on PATCH", async () => {
    const r = await call(t, "PATCH", `/management/issuers/${issuer.issuerId}`, {
      key: t.adminKey,
      rawBody: JSON.stringify({ description: "Patched" }),
      headers: { "content-type": "application/merge-patch+json" },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.description).toBe("Patched");
  });
});

describe("Credentials_Issue", () => {
  it("400 IssuerRequired without issuerId, 201 with it", async () => {
    const r = await call(t, "POST", "/v1.0/credentials/issuance", {
      key: t.adminKey,
      body: { credentialConfiguration: issuer.configuration, claims: VALID_CLAIMS },
    });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("IssuerRequired");
    const ok = await call(t, "POST", "/v1.0/credentials/issuance", { key: t.adminKey, body: body() });
    expect(ok.status).toBe(201);
    expect(ok.body.data.status).toBe("pending");
  });
  it("403 without scope, 401 without key, 404 for another tenant, 409 idempotency reuse", async () => {
    const reader = await t.key({ scopes: ["credentials.read"] });
    expect((await call(t, "POST", "/v1.0/credentials/issuance", { key: reader, body: body() })).status).toBe(
      403,
    );
    expect((await call(t, "POST", "/v1.0/credentials/issuance", { body: body() })).status).toBe(401);
    const other = await t.otherTenant();
    expect(
      (await call(t, "POST", "/v1.0/credentials/issuance", { key: other.key, body: body() })).status,
    ).toBe(404);
    const headers = { "idempotency-key": "ci-1" };
    await call(t, "POST", "/v1.0/credentials/issuance", { key: t.adminKey, body: body(), headers });
    const reused = await call(t, "POST", "/v1.0/credentials/issuance", {
      key: t.adminKey,
      body: body({ callbackReference: "y" }),
      headers,
    });
    expect(reused.status).toBe(409);
  });
});

describe("IssuanceTransactions_Get and _Cancel", () => {
  it("hands the pending offer link only to callers that may issue; a read-only key sees it as null", async () => {
    const tx = await create();
    const issuerKey = await t.key({ scopes: ["credentials.issue", "credentials.read"] });
    const full = (await call(t, "GET", `${PATH}/${tx.id}`, { key: issuerKey })).body.data;
    expect(full.credentialOffer).toBe(tx.credentialOffer);
    expect(full.credentialOfferUri).toBeTruthy();
    const reader = await t.key({ scopes: ["credentials.read"] });
    const read = await call(t, "GET", `${PATH}/${tx.id}`, { key: reader });
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({
      id: tx.id,
      status: "pending",
      credentialOffer: null,
      credentialOfferUri: null,
    });
  });

  it("reads its own, 404 for another tenant or environment, 403 without credentials.read", async () => {
    const tx = await create();
    expect((await call(t, "GET", `${PATH}/${tx.id}`, { key: t.adminKey })).body.data.id).toBe(tx.id);
    const other = await t.otherTenant();
    expect((await call(t, "GET", `${PATH}/${tx.id}`, { key: other.key })).status).toBe(404);
    const production = await t.key({ environment: "production" });
    expect((await call(t, "GET", `${PATH}/${tx.id}`, { key: production })).status).toBe(404);
    const issuerOnly = await t.key({ scopes: ["credentials.issue"] });
    expect((await call(t, "GET", `${PATH}/${tx.id}`, { key: issuerOnly })).status).toBe(403);
    expect((await call(t, "GET", `${PATH}/${tx.id}`)).status).toBe(401);
    expect((await call(t, "GET", `${PATH}/itx_unknown`, { key: t.adminKey })).status).toBe(404);
    // However long, an id that names nothing is a 404 (the operations list no 400).
    const long = `itx_${"x".repeat(80)}`;
    expect((await call(t, "GET", `${PATH}/${long}`, { key: t.adminKey })).status).toBe(404);
    expect((await call(t, "POST", `${PATH}/${long}/cancel`, { key: t.adminKey })).status).toBe(404);
  });

  it("cancels a pending transaction once; then 409; the offer stops working", async () => {
    const tx = await create();
    const r = await call(t, "POST", `${PATH}/${tx.id}/cancel`, { key: t.adminKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ status: "cancelled", credentialOffer: null });
    const again = await call(t, "POST", `${PATH}/${tx.id}/cancel`, { key: t.adminKey });
    expect(again.status).toBe(409);
    expect(errorCode(again)).toBe("InvalidState");
    expect((await fetch(tx.credentialOfferUri)).status).toBe(404);
    const reader = await t.key({ scopes: ["credentials.read"] });
    expect((await call(t, "POST", `${PATH}/${tx.id}/cancel`, { key: reader })).status).toBe(403);
    const other = await t.otherTenant();
    expect((await call(t, "POST", `${PATH}/${tx.id}/cancel`, { key: other.key })).status).toBe(404);
  });

  it("409 when cancelling a completed transaction", async () => {
    const tx = await create();
    const flow = await redeemOffer(tx.credentialOffer);
    expect(flow.credentialRes.status).toBe(200);
    const r = await call(t, "POST", `${PATH}/${tx.id}/cancel`, { key: t.adminKey });
    expect(r.status).toBe(409);
  });

  it("reads as expired past its lifetime and the code no longer works", async () => {
    const tx = await create();
    const offer = await resolveOffer(tx.credentialOffer);
    await t.server.database.prisma.issuanceTransaction.update({
      where: { id: tx.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await call(t, "GET", `${PATH}/${tx.id}`, { key: t.adminKey })).body.data.status).toBe("expired");
    const res = await token(`${issuer.credentialIssuer}/token`, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
    expect((await call(t, "POST", `${PATH}/${tx.id}/cancel`, { key: t.adminKey })).status).toBe(409);
  });
});

describe("OpenID4VCI flow", () => {
  it("publishes the issuer's display with the member names of §12.2.4 (logo alt_text)", async () => {
    const display = [
      { locale: "en", name: "Acme", logo: { uri: "https://acme.example/en.png", altText: "Acme logo" } },
      { locale: "nl", name: "Acme NL", logo: { uri: "https://acme.example/nl.png" } },
    ];
    const patched = await call(t, "PATCH", `/management/issuers/${issuer.issuerId}`, {
      key: t.adminKey,
      body: { display },
    });
    expect(patched.status).toBe(200);
    const md = await fetchJson(wellKnown("openid-credential-issuer", issuer.credentialIssuer));
    expect(md.body.display).toEqual([
      { locale: "en", name: "Acme", logo: { uri: "https://acme.example/en.png", alt_text: "Acme logo" } },
      { locale: "nl", name: "Acme NL", logo: { uri: "https://acme.example/nl.png" } },
    ]);
  });

  it("answers an OAuth endpoint of an unknown or draft issuer in the OAuth shape a wallet parses", async () => {
    const base = `${t.baseUrl}/issuers/iss_unknown`;
    const tokenRes = await token(`${base}/token`, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": "x",
    });
    expect(tokenRes.status).toBe(400);
    expect(tokenRes.body).toMatchObject({ error: "invalid_grant" });
    expect(tokenRes.headers.get("cache-control")).toBe("no-store");
    const nonceRes = await fetchJson(`${base}/nonce`, { method: "POST" });
    expect(nonceRes.status).toBe(404);
    expect(nonceRes.body).toMatchObject({ error: "invalid_request" });
    for (const endpoint of ["credential", "notification"]) {
      const r = await fetchJson(`${base}/${endpoint}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer abc" },
        body: "{}",
      });
      expect(r.status, endpoint).toBe(401);
      expect(r.body, endpoint).toMatchObject({ error: "invalid_token" });
      expect(r.headers.get("www-authenticate"), endpoint).toMatch(/^Bearer error="invalid_token"/);
    }
    // The documents a browser or relying party reads stay 404 in the REST shape.
    const md = await fetchJson(wellKnown("openid-credential-issuer", base));
    expect(md.status).toBe(404);
    expect(md.body.error.code).toBe("NotFound");
  });

  it("answers JSON to a wallet that asks for signed metadata while the issuer has no certificate (§12.2.3)", async () => {
    // A JWT naming its key by kid alone is one no wallet can validate (and §12.2.3 has it reject
    // that): signed metadata needs x5c (tested in issuer-certificates.test.ts), so JSON it is.
    const url = wellKnown("openid-credential-issuer", issuer.credentialIssuer);
    const plain = await fetchJson(url);
    expect(plain.headers.get("content-type")).toMatch(/^application\/json/);
    expect(plain.headers.get("vary")).toMatch(/accept/i);
    for (const accept of ["application/jwt", "application/json;q=0.2, application/jwt"]) {
      const res = await fetchJson(url, { headers: { accept } });
      expect(res.status, accept).toBe(200);
      expect(res.headers.get("content-type"), accept).toMatch(/^application\/json/);
      expect(res.headers.get("vary"), accept).toMatch(/accept/i);
      expect(res.body, accept).toEqual(plain.body);
    }
  });

  it("serves issuer and authorization server metadata by path insertion", async () => {
    const md = await fetchJson(wellKnown("openid-credential-issuer", issuer.credentialIssuer));
    expect(md.status).toBe(200);
    expect(md.body.credential_issuer).toBe(issuer.credentialIssuer);
    expect(md.body.credential_endpoint).toBe(`${issuer.credentialIssuer}/credential`);
    expect(md.body.nonce_endpoint).toBe(`${issuer.credentialIssuer}/nonce`);
    expect(md.body.batch_credential_issuance.batch_size).toBeGreaterThanOrEqual(2);
    const cfg = md.body.credential_configurations_supported[issuer.configuration];
    expect(cfg).toMatchObject({
      format: "dc+sd-jwt",
      vct: issuer.credentialType,
      scope: issuer.configuration,
      cryptographic_binding_methods_supported: ["jwk"],
      credential_signing_alg_values_supported: ["ES256"],
      proof_types_supported: { jwt: { proof_signing_alg_values_supported: ["ES256"] } },
    });
    expect(cfg.credential_metadata.claims.map((c: { path: string[] }) => c.path)).toContainEqual([
      "address",
      "country",
    ]);
    const as = await fetchJson(wellKnown("oauth-authorization-server", issuer.credentialIssuer));
    expect(as.body).toMatchObject({
      issuer: issuer.credentialIssuer,
      token_endpoint: `${issuer.credentialIssuer}/token`,
      "pre-authorized_grant_anonymous_access_supported": true,
    });
    expect(as.body.grant_types_supported).toContain(PRE_AUTH);
  });

  it("issues nested claims whose parent object the configuration does not declare", async () => {
    const nested = await activeIssuer(t, t.adminKey, {
      claims: [
        { path: ["place", "city"], type: "string", required: true },
        { path: ["place", "zip"], type: "string", required: false },
      ],
    });
    const body = (claims: unknown) => ({
      issuerId: nested.issuerId,
      credentialConfiguration: nested.configuration,
      claims,
    });
    const flat = await call(t, "POST", PATH, { key: t.adminKey, body: body({ "place.city": "Utrecht" }) });
    expect(flat.status).toBe(400);
    expect(errorCode(flat)).toBe("UnknownClaim");
    const missing = await call(t, "POST", PATH, { key: t.adminKey, body: body({}) });
    expect(missing.body.error.details).toEqual([
      expect.objectContaining({ code: "MissingClaim", target: "claims.place.city" }),
    ]);
    const created = await call(t, "POST", PATH, {
      key: t.adminKey,
      body: body({ place: { city: "Utrecht" } }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const flow = await redeemOffer(created.body.data.credentialOffer);
    const [{ credential }] = flow.credentialRes.body.credentials;
    const key = await importEs256PublicKey(
      (await fetchJson(wellKnown("jwt-vc-issuer", nested.credentialIssuer))).body.jwks.keys[0],
    );
    const verified = await verifySdJwtVc(credential, {
      resolveIssuerKey: async () => key,
      now: new Date(),
      expectedVct: [nested.credentialType],
    });
    if (!verified.ok) throw new Error(JSON.stringify(verified.reasons));
    expect((verified.payload as Record<string, unknown>).place).toEqual({ city: "Utrecht" });
  });

  it("issues an SD-JWT VC a wallet can verify with the published key, and completes the transaction", async () => {
    const tx = await create();
    const flow = await redeemOffer(tx.credentialOffer);
    expect(flow.tokenRes.headers.get("cache-control")).toBe("no-store");
    expect(flow.tokenRes.body.token_type).toBe("Bearer");
    expect(flow.credentialRes.status).toBe(200);
    expect(flow.credentialRes.headers.get("cache-control")).toBe("no-store");
    const [{ credential }] = flow.credentialRes.body.credentials;
    expect(typeof flow.credentialRes.body.notification_id).toBe("string");
    const key = await issuerKey();
    const verified = await verifySdJwtVc(credential, {
      resolveIssuerKey: async () => key,
      now: new Date(),
      expectedVct: [issuer.credentialType],
    });
    if (!verified.ok) throw new Error(JSON.stringify(verified.reasons));
    expect(verified.header).toMatchObject({ typ: "dc+sd-jwt", alg: "ES256" });
    expect(verified.header.kid).toBeTruthy();
    const p = verified.payload as Record<string, any>;
    expect(p.iss).toBe(issuer.credentialIssuer);
    expect(p.vct).toBe(issuer.credentialType);
    expect(p.exp - p.iat).toBe(365 * 86400);
    // Rounded to the start of the UTC day (OpenID4VCI §15.4.1), so it says nothing of the moment.
    expect(p.iat % 86_400).toBe(0);
    expect(Date.now() / 1000 - p.iat).toBeLessThan(86_400);
    expect(p.cnf.jwk).toMatchObject({ kty: "EC", crv: "P-256", x: flow.keys[0]!.publicJwk.x });
    expect(p.status.status_list.uri).toMatch(`${issuer.credentialIssuer}/status-lists/`);
    expect(p).toMatchObject({
      given_name: "Erika",
      family_name: "Mustermann",
      employee_number: 4711,
      address: { country: "DE" },
    });
    // Configured claims are disclosures; registered claims and non-SD claims are in the clear.
    const issuerJwtPayload = JSON.parse(
      Buffer.from(credential.split("~")[0].split(".")[1], "base64url").toString(),
    );
    expect(issuerJwtPayload.given_name).toBeUndefined();
    expect(issuerJwtPayload.employee_number).toBe(4711);
    expect(issuerJwtPayload._sd.length).toBeGreaterThanOrEqual(4);
    for (const registered of ["iss", "vct", "iat", "exp", "cnf", "status"])
      expect(issuerJwtPayload[registered]).toBeDefined();

    const read = await call(t, "GET", `${PATH}/${tx.id}`, { key: t.adminKey });
    expect(read.body.data).toMatchObject({ status: "completed", credentialOffer: null });
    expect(read.body.data.credentialId).toMatch(/^cred_/);
    // The claims stay sealed only while the access token lives, for further requests with it (§14.3;
    // apps/api/test/repeat-credential-requests.test.ts); the credential record keeps none of them.
    const row = await t.server.database.prisma.issuanceTransaction.findUniqueOrThrow({
      where: { id: tx.id },
    });
    expect(JSON.stringify(row)).not.toMatch(/Erika|Mustermann/);
    const cred = await t.server.database.prisma.credential.findUniqueOrThrow({
      where: { id: read.body.data.credentialId },
    });
    expect(JSON.stringify(cred)).not.toMatch(/Erika|Mustermann/);
  });

  it("accepts the tx_code, limits wrong attempts and then invalidates the code", async () => {
    const tx = await create({ delivery: { txCode: { inputMode: "numeric", length: 6 } } });
    const offer = await resolveOffer(tx.credentialOffer);
    const code = offer.grants[PRE_AUTH]["pre-authorized_code"];
    const tokenEndpoint = `${issuer.credentialIssuer}/token`;
    const missing = await token(tokenEndpoint, { grant_type: PRE_AUTH, "pre-authorized_code": code });
    expect(missing.body.error).toBe("invalid_request");
    const wrong = tx.txCode === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++) {
      const r = await token(tokenEndpoint, {
        grant_type: PRE_AUTH,
        "pre-authorized_code": code,
        tx_code: wrong,
      });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("invalid_grant");
    }
    const late = await token(tokenEndpoint, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": code,
      tx_code: tx.txCode,
    });
    expect(late.body.error).toBe("invalid_grant");

    const ok = await create({ delivery: { txCode: { inputMode: "text", length: 8 } } });
    expect(ok.txCode).toMatch(/^[A-Z2-9]{8}$/);
    const flow = await redeemOffer(ok.credentialOffer, { txCode: ok.txCode });
    expect(flow.credentialRes.status).toBe(200);
  });

  it("keeps the tx_code as a keyed hash, not one a database reader can search the code space with", async () => {
    const tx = await create({ delivery: { txCode: { inputMode: "numeric", length: 6 } } });
    const row = await t.server.database.prisma.issuanceTransaction.findUniqueOrThrow({
      where: { id: tx.id },
    });
    const stored = row.txCodeHash as string;
    const sha256 = (s: string) => createHash("sha256").update(s).digest("base64url");
    expect(stored).toMatch(/^k1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{43}$/);
    for (const unkeyed of [sha256(`${tx.id}:${tx.txCode}`), sha256(tx.txCode)])
      expect(stored).not.toContain(unkeyed);
    const flow = await redeemOffer(tx.credentialOffer, { txCode: tx.txCode });
    expect(flow.credentialRes.status, JSON.stringify(flow.credentialRes.body)).toBe(200);
  });

  it("still takes the tx_code of a transaction created before keyed hashes (an unkeyed SHA-256)", async () => {
    const tx = await create({ delivery: { txCode: { inputMode: "numeric", length: 6 } } });
    const legacy = createHash("sha256").update(`${tx.id}:${tx.txCode}`).digest("base64url");
    await t.server.database.prisma.issuanceTransaction.update({
      where: { id: tx.id },
      data: { txCodeHash: legacy },
    });
    const code = (await resolveOffer(tx.credentialOffer)).grants[PRE_AUTH]["pre-authorized_code"];
    const tokenEndpoint = `${issuer.credentialIssuer}/token`;
    const wrong = await token(tokenEndpoint, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": code,
      tx_code: tx.txCode === "000000" ? "111111" : "000000",
    });
    expect([wrong.status, wrong.body.error]).toEqual([400, "invalid_grant"]);
    const right = await token(tokenEndpoint, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": code,
      tx_code: tx.txCode,
    });
    expect(right.status, JSON.stringify(right.body)).toBe(200);
  });

  it("a code redeemed just before the offer expires keeps the transaction open for the token's lifetime", async () => {
    const tx = await create({ delivery: { expiresInSeconds: 60 } });
    const offer = await resolveOffer(tx.credentialOffer);
    const redeemedAt = Date.now();
    const tok = await token(`${issuer.credentialIssuer}/token`, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
    });
    expect(tok.status).toBe(200);
    // The offer had 60 s left; the token announces 300 s, and the transaction now lasts that long.
    const read = await call(t, "GET", `${PATH}/${tx.id}`, { key: t.adminKey });
    expect(Date.parse(read.body.data.expiresAt)).toBeGreaterThanOrEqual(
      redeemedAt + tok.body.expires_in * 1000 - 1000,
    );
    const key = await holderKey();
    const cNonce = await nonce(`${issuer.credentialIssuer}/nonce`);
    const res = await requestCredential(`${issuer.credentialIssuer}/credential`, tok.body.access_token, {
      credential_configuration_id: offer.credential_configuration_ids[0],
      proofs: { jwt: [await proof(key, issuer.credentialIssuer, cNonce)] },
    });
    expect(res.status).toBe(200);
  });

  it("counts wrong tx_codes sent at once: the limit holds under concurrency", async () => {
    const tx = await create({ delivery: { txCode: { inputMode: "numeric", length: 6 } } });
    const offer = await resolveOffer(tx.credentialOffer);
    const code = offer.grants[PRE_AUTH]["pre-authorized_code"];
    const tokenEndpoint = `${issuer.credentialIssuer}/token`;
    const wrong = (i: number) => String((Number(tx.txCode) + 1 + i) % 1_000_000).padStart(6, "0");
    // Over HTTP the guesses interleave as the connections deliver them; in-process, every guess reads the
    // transaction before any of them records its failure, the interleaving a race needs.
    const { exchangeToken } = await import("@cred/core/wallet");
    const fast = t.server.deps.database.root.sql;
    await Promise.all(Array.from({ length: 20 }, () => fast.query("SELECT 1", []))); // 20 open connections
    const guesses = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        exchangeToken(
          fast,
          t.server.deps.config,
          t.server.deps.secretBox,
          { id: issuer.issuerId, walletAttestation: null },
          {
            grant_type: PRE_AUTH,
            "pre-authorized_code": code,
            tx_code: wrong(i),
          },
        ),
      ),
    );
    expect(guesses.map((r) => r.status === "rejected" && (r.reason as { error?: string }).error)).toEqual(
      Array(20).fill("invalid_grant"),
    );
    // Twenty wrong guesses are more than the five allowed, however they interleaved: the code is gone.
    const right = await token(tokenEndpoint, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": code,
      tx_code: tx.txCode,
    });
    expect(right.body.error).toBe("invalid_grant");
    const row = await t.server.database.prisma.issuanceTransaction.findUniqueOrThrow({
      where: { id: tx.id },
    });
    expect(row.preAuthorizedCodeHash).toBeNull();
    expect(row.codeRedeemedAt).toBeNull();
  });

  it("answers bodies that fail before the handler in the endpoint's OAuth error shape, not the REST envelope", async () => {
    const post = (path: string, contentType: string, body: string) =>
      fetchJson(`${issuer.credentialIssuer}/${path}`, {
        method: "POST",
        headers: { "content-type": contentType, authorization: "Bearer x" },
        body,
      });
    const cases = [
      ["credential", "application/json", "{not json", "invalid_credential_request"],
      ["credential", "application/xml", "<a/>", "invalid_credential_request"],
      ["credential", "application/json", "x".repeat(1024 * 1024 + 1), "invalid_credential_request"],
      ["notification", "application/json", "{", "invalid_notification_request"],
      ["token", "application/json", "{", "invalid_request"],
      ["nonce", "application/xml", "<a/>", "invalid_request"],
    ] as const;
    for (const [path, contentType, body, error] of cases) {
      const r = await post(path, contentType, body);
      expect([path, contentType, r.status, r.body]).toEqual([
        path,
        contentType,
        400,
        { error, error_description: expect.any(String) },
      ]);
      expect(r.headers.get("cache-control")).toBe("no-store");
    }
  });

  it("refuses a tx_code that was not asked for, a reused code, and bad grant types", async () => {
    const tx = await create();
    const offer = await resolveOffer(tx.credentialOffer);
    const code = offer.grants[PRE_AUTH]["pre-authorized_code"];
    const tokenEndpoint = `${issuer.credentialIssuer}/token`;
    expect(
      (await token(tokenEndpoint, { grant_type: PRE_AUTH, "pre-authorized_code": code, tx_code: "1234" }))
        .body.error,
    ).toBe("invalid_request");
    expect((await token(tokenEndpoint, { grant_type: "client_credentials" })).body.error).toBe(
      "unsupported_grant_type",
    );
    expect((await token(tokenEndpoint, { grant_type: PRE_AUTH, "pre-authorized_code": code })).status).toBe(
      200,
    );
    const reused = await token(tokenEndpoint, { grant_type: PRE_AUTH, "pre-authorized_code": code });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe("invalid_grant");
    const json = await fetchJson(tokenEndpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(json.body.error).toBe("invalid_request");
  });

  it("nonces are single use; proofs with a wrong aud, stale iat or missing proof are refused; aud may be an array", async () => {
    const tx = await create();
    const offer = await resolveOffer(tx.credentialOffer);
    const tok = await token(`${issuer.credentialIssuer}/token`, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
    });
    const at = tok.body.access_token;
    const endpoint = `${issuer.credentialIssuer}/credential`;
    const key = await holderKey();
    const nonceRes = await fetch(`${issuer.credentialIssuer}/nonce`, { method: "POST" });
    expect(nonceRes.headers.get("cache-control")).toBe("no-store");
    const send = (jwts: string[]) =>
      requestCredential(endpoint, at, {
        credential_configuration_id: issuer.configuration,
        proofs: { jwt: jwts },
      });

    const wrongAud = await send([
      await proof(key, "https://elsewhere.example", await nonce(`${issuer.credentialIssuer}/nonce`)),
    ]);
    expect(wrongAud.body.error).toBe("invalid_proof");
    const stale = await send([
      await proof(
        key,
        issuer.credentialIssuer,
        await nonce(`${issuer.credentialIssuer}/nonce`),
        Math.floor(Date.now() / 1000) - 3600,
      ),
    ]);
    expect(stale.body.error).toBe("invalid_proof");
    const noProof = await requestCredential(endpoint, at, {
      credential_configuration_id: issuer.configuration,
    });
    expect(noProof.body.error).toBe("invalid_proof");
    const unknownCfg = await requestCredential(endpoint, at, {
      credential_configuration_id: "other",
      proofs: { jwt: ["x"] },
    });
    expect(unknownCfg.body.error).toBe("unknown_credential_configuration");
    // One the issuer offers, but not the one this token is for: an authorization error (§8.3.1.1).
    const otherConfig = await call(t, "POST", "/management/credential-configurations", {
      key: t.adminKey,
      body: {
        identifier: `second-${Date.now().toString(36)}`,
        displayName: "Second",
        issuerId: issuer.issuerId,
        schemaId: "second-v1",
        claims: EMPLOYEE_CLAIMS,
      },
    });
    expect(otherConfig.status, JSON.stringify(otherConfig.body)).toBe(201);
    const beyond = await requestCredential(endpoint, at, {
      credential_configuration_id: otherConfig.body.data.identifier,
      proofs: { jwt: ["x"] },
    });
    expect(beyond.status).toBe(403);
    expect(beyond.body.error).toBe("insufficient_scope");
    expect(beyond.headers.get("www-authenticate")).toMatch(/^Bearer error="insufficient_scope"/);
    const fabricated = await send([await proof(key, issuer.credentialIssuer, "not-a-nonce-we-issued")]);
    expect(fabricated.body.error).toBe("invalid_nonce");

    const wrongAudArray = await send([
      await proof(key, ["https://elsewhere.example"], await nonce(`${issuer.credentialIssuer}/nonce`)),
    ]);
    expect(wrongAudArray.body.error).toBe("invalid_proof");
    const n = await nonce(`${issuer.credentialIssuer}/nonce`);
    // RFC 7519 §4.1.3: an aud array that holds the credential issuer identifier names it as well.
    const ok = await send([await proof(key, [issuer.credentialIssuer], n)]);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const second = await create();
    const flow2Offer = await resolveOffer(second.credentialOffer);
    const tok2 = await token(`${issuer.credentialIssuer}/token`, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": flow2Offer.grants[PRE_AUTH]["pre-authorized_code"],
    });
    const replay = await requestCredential(endpoint, tok2.body.access_token, {
      credential_configuration_id: issuer.configuration,
      proofs: { jwt: [await proof(key, issuer.credentialIssuer, n)] },
    });
    expect(replay.body.error).toBe("invalid_nonce");
    // A completed transaction issues again with its token and a fresh nonce (§14.3), never on a spent one.
    const spent = await send([await proof(key, issuer.credentialIssuer, n)]);
    expect(spent.body.error).toBe("invalid_nonce");
    const again = await send([
      await proof(key, issuer.credentialIssuer, await nonce(`${issuer.credentialIssuer}/nonce`)),
    ]);
    expect(again.status).toBe(200);
  });

  it("returns credential_identifiers when the token request used authorization_details, and accepts them", async () => {
    const tx = await create();
    const offer = await resolveOffer(tx.credentialOffer);
    const tok = await token(`${issuer.credentialIssuer}/token`, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
      authorization_details: JSON.stringify([
        { type: "openid_credential", credential_configuration_id: issuer.configuration },
      ]),
    });
    expect(tok.status).toBe(200);
    expect(tok.body.authorization_details).toEqual([
      {
        type: "openid_credential",
        credential_configuration_id: issuer.configuration,
        credential_identifiers: [issuer.configuration],
      },
    ]);
    const key = await holderKey();
    const res = await requestCredential(`${issuer.credentialIssuer}/credential`, tok.body.access_token, {
      credential_identifier: issuer.configuration,
      proofs: {
        jwt: [await proof(key, issuer.credentialIssuer, await nonce(`${issuer.credentialIssuer}/nonce`))],
      },
    });
    expect(res.status).toBe(200);
  });

  it("refuses authorization_details naming a configuration that was not offered, and keeps the code", async () => {
    const tx = await create();
    const offer = await resolveOffer(tx.credentialOffer);
    const code = offer.grants[PRE_AUTH]["pre-authorized_code"];
    const asked = (id: string) =>
      token(`${issuer.credentialIssuer}/token`, {
        grant_type: PRE_AUTH,
        "pre-authorized_code": code,
        authorization_details: JSON.stringify([
          { type: "openid_credential", credential_configuration_id: id, locations: ["https://x.example"] },
        ]),
      });
    const other = await asked("something-else");
    expect(other.status).toBe(400);
    expect(other.body.error).toBe("invalid_authorization_details");
    // The refusal spent nothing: the same code with the offered configuration is redeemed, echoing the entry.
    const ok = await asked(issuer.configuration);
    expect(ok.status).toBe(200);
    expect(ok.body.authorization_details).toEqual([
      {
        type: "openid_credential",
        credential_configuration_id: issuer.configuration,
        locations: ["https://x.example"],
        credential_identifiers: [issuer.configuration],
      },
    ]);
  });

  it("answers 401 invalid_token without a valid bearer token", async () => {
    const r = await requestCredential(`${issuer.credentialIssuer}/credential`, "bogus", {
      credential_configuration_id: issuer.configuration,
    });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe("invalid_token");
    expect(r.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token"/);
    // No credentials at all: a bare challenge (RFC 6750 §3.1), at the credential and notification endpoints.
    for (const path of ["credential", "notification"]) {
      const none = await fetchJson(`${issuer.credentialIssuer}/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect([path, none.status, none.headers.get("www-authenticate")]).toEqual([
        path,
        401,
        'Bearer, DPoP algs="ES256"',
      ]);
    }
  });

  it("issues a batch with distinct keys, status indices and salts", async () => {
    const tx = await create();
    const flow = await redeemOffer(tx.credentialOffer, { proofs: 3 });
    expect(flow.credentialRes.status).toBe(200);
    const creds: string[] = flow.credentialRes.body.credentials.map(
      (c: { credential: string }) => c.credential,
    );
    expect(creds).toHaveLength(3);
    const payloads = creds.map((c) =>
      JSON.parse(Buffer.from(c.split("~")[0]!.split(".")[1]!, "base64url").toString()),
    );
    expect(new Set(payloads.map((p) => p.status.status_list.idx)).size).toBe(3);
    expect(new Set(payloads.map((p) => p.cnf.jwk.x)).size).toBe(3);
    const firstDisclosures = creds.map((c) => c.split("~")[1]);
    expect(new Set(firstDisclosures).size).toBe(3);
  });

  it("records wallet notifications (204, idempotent) and emits an event", async () => {
    const tx = await create();
    const flow = await redeemOffer(tx.credentialOffer);
    const endpoint = `${issuer.credentialIssuer}/notification`;
    const send = (b: unknown) =>
      fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${flow.accessToken}` },
        body: JSON.stringify(b),
      });
    const notification = {
      notification_id: flow.credentialRes.body.notification_id,
      event: "credential_accepted",
    };
    expect((await send(notification)).status).toBe(204);
    expect((await send(notification)).status).toBe(204);
    const bad = await send({ notification_id: "unknown", event: "credential_accepted" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe("invalid_notification_id");
    // Names every object has are not events (they were: 500, or junk stored for __proto__).
    for (const event of ["constructor", "toString", "__proto__"]) {
      const odd = await send({ notification_id: notification.notification_id, event });
      expect([event, odd.status, ((await odd.json()) as { error: string }).error]).toEqual([
        event,
        400,
        "invalid_notification_request",
      ]);
    }
    // §11.1: event_description is printable ASCII without " and \ (%x20-21 / %x23-5B / %x5D-7E).
    for (const description of ['said "no"', "C:\\wallet", "two\nlines", "gelöscht"]) {
      const odd = await send({
        ...notification,
        event: "credential_deleted",
        event_description: description,
      });
      expect([description, odd.status, ((await odd.json()) as { error: string }).error]).toEqual([
        description,
        400,
        "invalid_notification_request",
      ]);
    }
    const described = await send({ ...notification, event_description: "Stored (slot #2) - OK!" });
    expect(described.status).toBe(204);
    const events = await t.server.database.prisma.outboxEvent.findMany({
      where: { type: "credential.accepted" },
    });
    expect(
      events.filter((e) => (e.payload as { transactionId: string }).transactionId === tx.id),
    ).toHaveLength(1);
  });

  it("takes a c_nonce only at the issuer that handed it out: not another issuer's, of this tenant or another", async () => {
    const otherKey = (await t.otherTenant()).key;
    const others = [
      { active: await activeIssuer(t, t.adminKey), key: t.adminKey },
      { active: await activeIssuer(t, otherKey), key: otherKey },
    ];
    const holder = await holderKey();
    /** A credential request at `active` with an access token of its own and a proof with `cNonce`. */
    const requestAt = async (active: ActiveIssuer, key: string, cNonce: string) => {
      const created = await call(t, "POST", PATH, {
        key,
        body: {
          credentialConfiguration: active.configuration,
          issuerId: active.issuerId,
          claims: VALID_CLAIMS,
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const offer = await resolveOffer(created.body.data.credentialOffer);
      const tok = await token(`${active.credentialIssuer}/token`, {
        grant_type: PRE_AUTH,
        "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
      });
      return requestCredential(`${active.credentialIssuer}/credential`, tok.body.access_token, {
        credential_configuration_id: active.configuration,
        proofs: { jwt: [await proof(holder, active.credentialIssuer, cNonce)] },
      });
    };
    for (const other of others) {
      const theirs = await nonce(`${other.active.credentialIssuer}/nonce`);
      const refused = await requestAt(issuer, t.adminKey, theirs);
      expect([refused.status, refused.body.error], other.active.issuerId).toEqual([400, "invalid_nonce"]);
      // The nonce is good where it came from (and the refusal did not spend it).
      const there = await requestAt(other.active, other.key, theirs);
      expect(there.status, JSON.stringify(there.body)).toBe(200);
    }
    const own = await requestAt(issuer, t.adminKey, await nonce(`${issuer.credentialIssuer}/nonce`));
    expect(own.status, JSON.stringify(own.body)).toBe(200);
  });

  it("spends a c_nonce once even when several transactions present it at the same moment", async () => {
    const tokens = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const offer = await resolveOffer((await create()).credentialOffer);
        return (
          await token(`${issuer.credentialIssuer}/token`, {
            grant_type: PRE_AUTH,
            "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
          })
        ).body.access_token as string;
      }),
    );
    const key = await holderKey();
    const shared = await nonce(`${issuer.credentialIssuer}/nonce`);
    const endpoint = `${issuer.credentialIssuer}/credential`;
    const attempt = async (at: string, c: string) =>
      requestCredential(endpoint, at, {
        credential_configuration_id: issuer.configuration,
        proofs: { jwt: [await proof(key, issuer.credentialIssuer, c)] },
      });
    const results = await Promise.all(tokens.map((at) => attempt(at, shared)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused.map((r) => r.body.error)).toEqual(["invalid_nonce", "invalid_nonce", "invalid_nonce"]);
    // The refused transactions stay pending and succeed with a fresh nonce.
    const losers = tokens.filter((_, i) => results[i]!.status !== 200);
    for (const at of losers) {
      expect((await attempt(at, await nonce(`${issuer.credentialIssuer}/nonce`))).status).toBe(200);
    }
  });

  it("refuses the credential with invalid_token when the transaction was cancelled after its token was issued", async () => {
    const tx = await create();
    const offer = await resolveOffer(tx.credentialOffer);
    const tok = await token(`${issuer.credentialIssuer}/token`, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
    });
    expect((await call(t, "POST", `${PATH}/${tx.id}/cancel`, { key: t.adminKey })).status).toBe(200);
    const key = await holderKey();
    const res = await requestCredential(`${issuer.credentialIssuer}/credential`, tok.body.access_token, {
      credential_configuration_id: issuer.configuration,
      proofs: {
        jwt: [await proof(key, issuer.credentialIssuer, await nonce(`${issuer.credentialIssuer}/nonce`))],
      },
    });
    // Cancelling revoked the token: 401 invalid_token, whether the token was still in this process's
    // memory (this first request) or read again (the retry), on any process.
    expect([res.status, res.body.error]).toEqual([401, "invalid_token"]);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token"/);
    const retry = await requestCredential(`${issuer.credentialIssuer}/credential`, tok.body.access_token, {
      credential_configuration_id: issuer.configuration,
      proofs: {
        jwt: [await proof(key, issuer.credentialIssuer, await nonce(`${issuer.credentialIssuer}/nonce`))],
      },
    });
    expect([retry.status, retry.body.error]).toEqual([401, "invalid_token"]);
    const read = await call(t, "GET", `${PATH}/${tx.id}`, { key: t.adminKey });
    expect(read.body.data.status).toBe("cancelled");
  });

  it("gives concurrent issuances distinct status indices", async () => {
    const txs = await Promise.all(Array.from({ length: 8 }, () => create()));
    const flows = await Promise.all(txs.map((tx) => redeemOffer(tx.credentialOffer)));
    const indices = flows.map((f) => {
      const c = f.credentialRes.body.credentials[0].credential as string;
      return JSON.parse(Buffer.from(c.split("~")[0]!.split(".")[1]!, "base64url").toString()).status
        .status_list.idx;
    });
    expect(new Set(indices).size).toBe(indices.length);
  });
});

describe("Credentials_Revoke and the status list", () => {
  async function issued() {
    const tx = await create();
    const flow = await redeemOffer(tx.credentialOffer);
    const credential = flow.credentialRes.body.credentials[0].credential as string;
    const payload = JSON.parse(Buffer.from(credential.split("~")[0]!.split(".")[1]!, "base64url").toString());
    const read = await call(t, "GET", `${PATH}/${tx.id}`, { key: t.adminKey });
    return {
      credentialId: read.body.data.credentialId as string,
      status: payload.status.status_list as { idx: number; uri: string },
    };
  }

  async function statusOf(entry: { idx: number; uri: string }) {
    const res = await fetch(entry.uri, { headers: { accept: "application/statuslist+jwt" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/statuslist\+jwt/);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const jwt = await res.text();
    const header = JSON.parse(Buffer.from(jwt.split(".")[0]!, "base64url").toString());
    expect(header.typ).toBe("statuslist+jwt");
    const list = await verifyStatusListToken(jwt, await issuerKey(), {
      expectedSub: entry.uri,
      now: new Date(),
    });
    expect(list.bits).toBe(2);
    expect(list.ttl).toBeGreaterThan(0);
    return getStatus(list.bytes, list.bits, entry.idx);
  }

  /** A GET without fetch's transparent decoding, so the test sees the bytes and headers as sent. */
  function rawGet(url: string, headers: Record<string, string>) {
    return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      httpGet(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      }).on("error", reject);
    });
  }

  it("serves the list gzipped when accepted, identity otherwise, and 304 while the client's ETag is current", async () => {
    const { credentialId, status } = await issued();
    const plain = await rawGet(status.uri, { "accept-encoding": "identity" });
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    const etag = plain.headers.etag!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);

    const gz = await rawGet(status.uri, { "accept-encoding": "br;q=1, gzip;q=0.5" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    // Its own strong tag (RFC 9110 §8.8.3), current together with the plain one's.
    expect(gz.headers.etag).toBe(etag.replace(/"$/, '-gz"'));
    expect((await rawGet(status.uri, { "if-none-match": gz.headers.etag! })).status).toBe(304);
    expect(gunzipSync(gz.body).toString()).toBe(plain.body.toString());
    expect(
      (await rawGet(status.uri, { "accept-encoding": "gzip;q=0, *" })).headers["content-encoding"],
    ).toBeUndefined();

    const unchanged = await rawGet(status.uri, { "if-none-match": `W/"other", ${etag}` });
    expect(unchanged.status).toBe(304);
    expect(unchanged.body.length).toBe(0);
    expect(unchanged.headers.etag).toBe(etag);

    expect(
      (await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: t.adminKey })).status,
    ).toBe(200);
    const changed = await rawGet(status.uri, { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    const list = await verifyStatusListToken(changed.body.toString(), await issuerKey(), {
      expectedSub: status.uri,
      now: new Date(),
    });
    expect(getStatus(list.bytes, list.bits, status.idx)).toBe(1);
  });

  it("revoking one copy of a batch revokes every copy of that issuance (one credential to its holder)", async () => {
    const tx = await create();
    const flow = await redeemOffer(tx.credentialOffer, { proofs: 3 });
    const entries = (flow.credentialRes.body.credentials as { credential: string }[]).map(
      ({ credential }) =>
        JSON.parse(Buffer.from(credential.split("~")[0]!.split(".")[1]!, "base64url").toString()).status
          .status_list as { idx: number; uri: string },
    );
    expect(entries).toHaveLength(3);
    const other = await issued(); // another issuance stays valid
    const { credentialId } = (await call(t, "GET", `${PATH}/${tx.id}`, { key: t.adminKey })).body.data;
    const r = await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: t.adminKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ credentialId, status: "revoked" });
    for (const entry of entries) expect(await statusOf(entry)).toBe(1);
    expect(await statusOf(other.status)).toBe(0);
    const again = await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: t.adminKey });
    expect(again.status).toBe(200);
    expect(again.body.data.revokedAt).toBe(r.body.data.revokedAt);
  });

  it.skipIf(!process.env.TEST_POSTGRES_URL)(
    "a batch revocation waits for another transaction holding its copies instead of deadlocking with it",
    async () => {
      const tx = await create();
      await redeemOffer(tx.credentialOffer, { proofs: 2 });
      const prisma = t.server.database.prisma;
      const [x, y] = await prisma.credential.findMany({
        where: { transactionId: tx.id },
        orderBy: { id: "asc" },
      });
      // Y first in (list, index) order, X first in id order: the orders in which the two sides lock.
      expect(x!.statusListId).toBe(y!.statusListId);
      if (x!.statusIndex! < y!.statusIndex!) {
        const swap = (id: string, idx: number) =>
          prisma.credential.update({ where: { id }, data: { statusIndex: idx } });
        await swap(x!.id, -1);
        await swap(y!.id, x!.statusIndex!);
        await swap(x!.id, y!.statusIndex!);
      }
      const other = await t.server.database.pool!.connect();
      try {
        // Another writer of the batch (as a wallet notification is) holds X, then wants Y.
        await other.query("BEGIN");
        await other.query(`UPDATE "Credential" SET "notifiedAt" = now() WHERE "id" = $1`, [x!.id]);
        const revoking = call(t, "POST", `/v1.0/credentials/${y!.id}/revoke`, { key: t.adminKey });
        await new Promise((resolve) => setTimeout(resolve, 300));
        await other.query(`UPDATE "Credential" SET "notifiedAt" = now() WHERE "id" = $1`, [y!.id]);
        await other.query("COMMIT");
        expect((await revoking).status).toBe(200);
      } finally {
        other.release();
      }
      const copies = await prisma.credential.findMany({ where: { transactionId: tx.id } });
      expect(copies.map((c) => c.status)).toEqual(["revoked", "revoked"]);
    },
  );

  it("answers a request for the list at a past time with 501 (historical resolution is not offered)", async () => {
    const { status } = await issued();
    const res = await fetch(`${status.uri}?time=${Math.floor(Date.now() / 1000) - 60}`);
    expect(res.status).toBe(501);
    expect(await res.json()).toMatchObject({ error: { code: "NotImplemented" } });
  });

  it("negotiates the list's media type: 406 for a client that takes only the CWT form, the JWT otherwise", async () => {
    const { status } = await issued();
    const get = (accept: string) => fetch(status.uri, { headers: { accept } });
    const cwtOnly = await get("application/statuslist+cwt");
    expect(cwtOnly.status).toBe(406);
    expect(await cwtOnly.json()).toMatchObject({ error: { code: "NotAcceptable" } });
    for (const accept of [
      "application/statuslist+jwt",
      "application/statuslist+cwt, application/statuslist+jwt;q=0.5",
      "*/*",
      "application/json",
    ]) {
      const res = await get(accept);
      expect(res.status, accept).toBe(200);
      expect(res.headers.get("content-type"), accept).toMatch(/^application\/statuslist\+jwt/);
    }
    expect((await get("application/statuslist+cwt, application/statuslist+jwt;q=0")).status).toBe(406);
    expect((await get("application/statuslist+jwt;q=0, application/statuslist+cwt, */*")).status).toBe(406);
  });

  it("shows a revocation from the moment Credentials_Revoke returns; repeat is 200", async () => {
    const { credentialId, status } = await issued();
    expect(await statusOf(status)).toBe(0);
    const r = await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: t.adminKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ credentialId, status: "revoked", statusList: status });
    expect(await statusOf(status)).toBe(1);
    const again = await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: t.adminKey });
    expect(again.status).toBe(200);
    expect(again.body.data.revokedAt).toBe(r.body.data.revokedAt);
    const events = await t.server.database.prisma.outboxEvent.findMany({
      where: { type: "credential.revoked" },
    });
    expect(
      events.filter((e) => (e.payload as { credentialId: string }).credentialId === credentialId),
    ).toHaveLength(1);
  });

  it("fetches arriving together after revocations all show every revocation made before them", async () => {
    const a = await issued();
    const b = await issued();
    expect(await statusOf(a.status)).toBe(0);
    await call(t, "POST", `/v1.0/credentials/${a.credentialId}/revoke`, { key: t.adminKey });
    // One token is built for the new version and shared by the fetches that wait for it.
    expect(await Promise.all(Array.from({ length: 8 }, () => statusOf(a.status)))).toEqual(Array(8).fill(1));
    // Revocations interleaved with fetches: each fetch that starts after a revocation returns shows it.
    const revokeB = call(t, "POST", `/v1.0/credentials/${b.credentialId}/revoke`, { key: t.adminKey });
    const during = Array.from({ length: 4 }, () => statusOf(b.status));
    await revokeB;
    expect((await Promise.all(during)).every((s) => s === 0 || s === 1)).toBe(true);
    expect(await Promise.all(Array.from({ length: 4 }, () => statusOf(b.status)))).toEqual([1, 1, 1, 1]);
    expect(await statusOf(a.status)).toBe(1);
  });

  it("revocations of neighbours in the same byte do not disturb each other", async () => {
    const a = await issued();
    const b = await issued();
    await Promise.all([
      call(t, "POST", `/v1.0/credentials/${a.credentialId}/revoke`, { key: t.adminKey }),
      call(t, "POST", `/v1.0/credentials/${b.credentialId}/revoke`, { key: t.adminKey }),
    ]);
    expect(await statusOf(a.status)).toBe(1);
    expect(await statusOf(b.status)).toBe(1);
    const row = await t.server.database.prisma.statusList.findFirstOrThrow({
      where: { issuerId: issuer.issuerId },
    });
    const revoked = await t.server.database.prisma.credential.count({
      where: { statusListId: row.id, status: "revoked" },
    });
    const chunks = await t.server.database.prisma.statusListChunk.findMany({ where: { listId: row.id } });
    const bytes = new Uint8Array((row.size * 2) / 8);
    for (const c of chunks) bytes.set(new Uint8Array(c.data), c.chunk * 1024);
    let set = 0;
    for (let i = 0; i < row.size; i++) if (getStatus(bytes, 2, i) === 1) set++;
    expect(set).toBe(revoked);
    expect(decodeStatusList).toBeTypeOf("function");
  });

  it("404 for unknown or foreign credentials, 403 without scope, 401 without key", async () => {
    const { credentialId } = await issued();
    expect((await call(t, "POST", "/v1.0/credentials/cred_unknown/revoke", { key: t.adminKey })).status).toBe(
      404,
    );
    const other = await t.otherTenant();
    expect(
      (await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: other.key })).status,
    ).toBe(404);
    const production = await t.key({ environment: "production" });
    expect(
      (await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: production })).status,
    ).toBe(404);
    const issuerOnly = await t.key({ scopes: ["credentials.issue"] });
    expect(
      (await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: issuerOnly })).status,
    ).toBe(403);
    expect((await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`)).status).toBe(401);
  });

  it("400 for a credential issued without status", async () => {
    const noStatus = await activeIssuer(t, t.adminKey, {
      statusEnabled: false,
      holderBindingRequired: false,
    });
    const tx = (
      await call(t, "POST", PATH, {
        key: t.adminKey,
        body: {
          credentialConfiguration: noStatus.configuration,
          issuerId: noStatus.issuerId,
          claims: VALID_CLAIMS,
        },
      })
    ).body.data;
    const offer = await resolveOffer(tx.credentialOffer);
    const tok = await token(`${noStatus.credentialIssuer}/token`, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
    });
    const res = await requestCredential(`${noStatus.credentialIssuer}/credential`, tok.body.access_token, {
      credential_configuration_id: noStatus.configuration,
    });
    expect(res.status).toBe(200);
    const payload = JSON.parse(
      Buffer.from(res.body.credentials[0].credential.split("~")[0].split(".")[1], "base64url").toString(),
    );
    expect(payload.cnf).toBeUndefined();
    expect(payload.status).toBeUndefined();
    const read = await call(t, "GET", `${PATH}/${tx.id}`, { key: t.adminKey });
    const r = await call(t, "POST", `/v1.0/credentials/${read.body.data.credentialId}/revoke`, {
      key: t.adminKey,
    });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("RevocationNotSupported");
  });
});

describe("status list allocation under pressure", () => {
  it("never hands out a (list, index) twice and moves to a new list when one fills", async () => {
    const base = t.server.deps.config.issuance;
    const small = await startTestServer({ config: { issuance: { ...base, statusListSize: 16 } } });
    try {
      const tiny = await activeIssuer(small, small.adminKey);
      const entries: string[] = [];
      for (let i = 0; i < 8; i++) {
        const tx = await call(small, "POST", PATH, {
          key: small.adminKey,
          body: {
            credentialConfiguration: tiny.configuration,
            issuerId: tiny.issuerId,
            claims: VALID_CLAIMS,
          },
        });
        const flow = await redeemOffer(tx.body.data.credentialOffer, { proofs: 3 });
        expect(flow.credentialRes.status).toBe(200);
        for (const { credential } of flow.credentialRes.body.credentials) {
          const { status } = JSON.parse(
            Buffer.from(credential.split("~")[0].split(".")[1], "base64url").toString(),
          );
          entries.push(`${status.status_list.uri}#${status.status_list.idx}`);
        }
      }
      expect(new Set(entries).size).toBe(24);
      const lists = await small.server.database.prisma.statusList.findMany({
        where: { issuerId: tiny.issuerId },
      });
      expect(lists.length).toBeGreaterThanOrEqual(2);
      expect(lists.filter((l) => l.full).length).toBeGreaterThanOrEqual(1);
    } finally {
      await small.close();
    }
  });
});
